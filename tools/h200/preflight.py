"""H200: compile preflight of a Qwen3-8B-sized drafter attention over the reference buckets, cold then warm inductor cache
(two fresh processes). Run on the device machine: source tools/h200/setup.sh && python3 tools/h200/preflight.py"""
from dflash_nb.compile import preflight_cold_warm
print(preflight_cold_warm('/tmp/dflash-preflight'))
