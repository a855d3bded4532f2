import torch, triton
import triton.language as tl

@triton.jit
def _ce_stats(X, LAB, LSE, PRED, CE, V, stride, BLOCK: tl.constexpr):
    "One row of logits: log-sum-exp, argmax (first of the largest) and CE at its label, in one pass."
    row = tl.program_id(0)
    xp = X + row.to(tl.int64) * stride
    m = tl.full([BLOCK], float('-inf'), tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    idx = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(xp + cols, mask=cols < V, other=float('-inf')).to(tl.float32)
        new_m = tl.maximum(m, x)
        live = new_m > float('-inf')
        s = tl.where(live, s * tl.exp(m - new_m) + tl.exp(x - new_m), 0.0)
        idx = tl.where(x > m, cols, idx)
        m = new_m
    M = tl.max(m, 0)
    S = tl.sum(tl.where(m > float('-inf'), s * tl.exp(m - M), 0.0), 0)
    P = tl.min(tl.where(m == M, idx, V), 0)
    lse = M + tl.log(S)
    lab = tl.load(LAB + row)
    xl = tl.load(xp + lab).to(tl.float32)
    tl.store(LSE + row, lse); tl.store(PRED + row, P.to(tl.int64)); tl.store(CE + row, lse - xl)

@triton.jit
def _ce_grad(X, LAB, LSE, W, V, stride, BLOCK: tl.constexpr):
    "w * (softmax - onehot) of one block of a row, written over the logits."
    row, blk = tl.program_id(0), tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    xp = X + row.to(tl.int64) * stride + cols
    x = tl.load(xp, mask=cols < V, other=0.0).to(tl.float32)
    lse, w, lab = tl.load(LSE + row), tl.load(W + row), tl.load(LAB + row)
    p = tl.exp(x - lse) - (cols == lab).to(tl.float32)
    tl.store(xp, (p * w).to(X.dtype.element_ty), mask=cols < V)

def ce_chunk_triton(logits, lab, w, need_grad:bool, dpace=None, block:int=4096, gblock:int=2048):
    "`_ce_chunk_inplace`'s results from two Triton kernels: (weighted CE sum, argmax, w*(softmax - onehot) over the logits or None, weights used)."
    from dflash_nb.loss import dpace_weights
    r, V = logits.shape
    assert logits.stride(1) == 1
    lse = torch.empty(r, device=logits.device, dtype=torch.float32); ce = torch.empty_like(lse)
    pred = torch.empty(r, device=logits.device, dtype=torch.int64)
    _ce_stats[(r,)](logits, lab, lse, pred, ce, V, logits.stride(0), BLOCK=min(block, triton.next_power_of_2(V)))
    if dpace: w = dpace_weights(ce, w, *dpace)
    w = w.float()
    loss = (ce * w).sum()
    if not need_grad: return loss, pred, None, w
    g = min(gblock, triton.next_power_of_2(V))
    _ce_grad[(r, triton.cdiv(V, g))](logits, lab, lse, w, V, logits.stride(0), BLOCK=g)
    return loss, pred, logits, w
