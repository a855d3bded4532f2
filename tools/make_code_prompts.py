"""The programming prompts of the fine-tuning demo: a domain apart from the demo's chit-chat, written for this project.

    python tools/make_code_prompts.py            # writes data_samples/code_prompts.jsonl.gz and data_samples/code_heldout.jsonl
    python tools/make_code_prompts.py --check    # exit 1 if the files differ from what it would write

Each prompt asks for a small program, an explanation or a fix, built from the task, language and style lists below
(no text taken from elsewhere: Apache-2.0 with the project). The held-out tasks are a disjoint set of tasks (not only
of prompts), so a held-out prompt has no near-twin in training. Records are OpenAI `messages` with a `domain` and a
`task` field, one user turn each, in a fixed order (no randomness).
"""
import gzip, itertools, json, sys
from pathlib import Path

TASKS = [
    ("reverses the words of a sentence", "reverse_words"), ("counts the vowels in a string", "count_vowels"),
    ("checks whether a string is a palindrome, ignoring case and spaces", "is_palindrome"),
    ("returns the n-th Fibonacci number iteratively", "fibonacci"), ("merges two sorted lists into one sorted list", "merge_sorted"),
    ("removes duplicates from a list while keeping the order", "dedupe"), ("flattens a nested list of any depth", "flatten"),
    ("converts a snake_case identifier to camelCase", "snake_to_camel"), ("computes the greatest common divisor of two integers", "gcd"),
    ("returns all prime numbers below n with a sieve", "primes_below"), ("groups words that are anagrams of each other", "group_anagrams"),
    ("finds the longest common prefix of a list of strings", "common_prefix"), ("rotates a square matrix by 90 degrees", "rotate_matrix"),
    ("parses a date in the form YYYY-MM-DD and returns the weekday", "weekday"), ("counts word frequencies in a text", "word_counts"),
    ("checks whether brackets in a string are balanced", "balanced"), ("converts a Roman numeral to an integer", "roman_to_int"),
    ("converts an integer to a Roman numeral", "int_to_roman"), ("computes the running average of a list of numbers", "running_mean"),
    ("splits a list into chunks of a given size", "chunks"), ("transposes a list of rows", "transpose"),
    ("finds the two numbers in a list that add up to a target", "two_sum"), ("returns the median of a list of numbers", "median"),
    ("validates an email address with a simple rule", "valid_email"), ("capitalizes the first letter of every sentence", "capitalize"),
    ("counts the lines, words and characters of a file", "wc"), ("reads a CSV file and sums one column", "sum_column"),
    ("computes the Levenshtein distance between two strings", "levenshtein"), ("does a binary search in a sorted list", "binary_search"),
    ("sorts a list of dictionaries by one key", "sort_by_key"), ("compresses a string with run-length encoding", "rle_encode"),
    ("decodes a run-length encoded string", "rle_decode"), ("checks whether a year is a leap year", "is_leap"),
    ("converts Celsius to Fahrenheit for a list of readings", "c_to_f"), ("returns the factorial of n recursively", "factorial"),
    ("finds the most common element of a list", "most_common"), ("checks whether two strings are anagrams", "is_anagram"),
    ("generates all permutations of a string", "permutations"), ("returns the power set of a list", "power_set"),
    ("implements a stack with push, pop and peek", "Stack"), ("implements a queue with two stacks", "Queue"),
    ("computes the dot product of two vectors", "dot"), ("multiplies two matrices", "matmul"),
    ("converts a binary string to an integer without built-ins", "bin_to_int"), ("pads a string to a given width on both sides", "center"),
    ("checks whether a number is an Armstrong number", "is_armstrong"), ("returns the digits of a number in reverse order", "reverse_digits"),
    ("finds the maximum subarray sum", "max_subarray"), ("merges overlapping intervals", "merge_intervals"),
    ("counts the islands in a grid of 0s and 1s", "count_islands"), ("checks whether a Sudoku row is valid", "valid_row"),
    ("returns the k largest numbers of a list", "top_k"), ("truncates a text to n words and adds an ellipsis", "truncate"),
    ("converts a dictionary to a query string", "to_query"), ("parses a query string into a dictionary", "parse_query"),
    ("computes compound interest over n years", "compound"), ("checks whether a graph given as edges has a cycle", "has_cycle"),
    ("finds the shortest path in an unweighted graph", "shortest_path"), ("returns the mode of a list of numbers", "mode"),
    ("removes all HTML tags from a string", "strip_tags"), ("converts a number of seconds to hours, minutes and seconds", "hms"),
    ("implements a simple LRU cache", "LRUCache"), ("checks whether a linked list has a loop", "has_loop"),
]
HELDOUT_TASKS = 14                     # the last 14 tasks are held out whole
LANGS = ["Python", "JavaScript", "Go", "Rust", "C", "Java", "TypeScript", "Ruby"]
STYLES = [
    "Write a {lang} function named `{name}` that {task}.",
    "In {lang}, write `{name}`, a function that {task}. Add a short docstring or comment.",
    "Write a {lang} function that {task}, then show two example calls and their results.",
    "Explain step by step how you would write a {lang} function that {task}, then give the code.",
    "Write a {lang} function `{name}` that {task}. Handle empty input without an error.",
    "I need {lang} code that {task}. Keep it short and readable.",
    "My {lang} function `{name}` is supposed to do this: it {task}. It fails on edge cases. What should I check, and how would you write it?",
    "Write unit tests in {lang} for a function `{name}` that {task}.",
]

def records(tasks):
    for (task, name), lang, style in itertools.product(tasks, LANGS, STYLES):
        yield {"messages": [{"role": "user", "content": style.format(lang=lang, name=name, task=task)}], "domain": "code", "task": name}

def main(check=False):
    root = Path(__file__).resolve().parents[1] / 'data_samples'
    out = {'code_prompts.jsonl.gz': list(records(TASKS[:-HELDOUT_TASKS])),
           'code_heldout.jsonl': list(records(TASKS[-HELDOUT_TASKS:]))[::7]}   # every 7th: 128 held-out prompts over the 14 tasks
    bad = 0
    for f, rs in out.items():
        text = ''.join(json.dumps(r) + '\n' for r in rs)
        gz = f.endswith('.gz')                    # gzipped with mtime 0: the same bytes every time
        data = gzip.compress(text.encode(), 9, mtime=0) if gz else text.encode()
        if check: bad += (root / f).read_bytes() != data
        else: (root / f).write_bytes(data); print(f"{f}: {len(rs)} prompts")
    return bad

if __name__ == '__main__': sys.exit(1 if main('--check' in sys.argv) else 0)
