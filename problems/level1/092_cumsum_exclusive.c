/*
 * level1/092_cumsum_exclusive -- KernelBench L1/92, x (32768, 32768) fp32, dim = 1:
 *   exclusive = torch.cat((torch.zeros_like(x.select(1, 0).unsqueeze(1)), x), dim=1)
 *                   .narrow(1, 0, x.size(1))
 *   y = torch.cumsum(exclusive, dim=1)                                   -> (32768, 32768)
 * (KernelBench's current forward; the paper's CSV gives the (32768, 32768) output. Note that this
 * is an inclusive scan of [0, x[:, :-1]], i.e. the exclusive cumsum.)
 *
 * Eager PyTorch, in order: zeros_like of the (32768, 1) column (a fill kernel, 128 KB); cat into
 * a (32768, 32769) temporary (CatArrayBatchedCopy, 8.6 GB moved), which frees the zeros; narrow
 * is a view, NOT contiguous (row stride 32769), so cumsum's scan_dim first makes it contiguous
 * (expect_contiguous: an elementwise copy into a third temporary, 8.6 GB moved), then the
 * innermost-dim scan (block (16, 32), 1024 blocks, as L1/89) writes y. Peak: x + cat + copy + y
 * = 17.2 GB.
 * Napkin math: cat ~2.0 ms + copy ~2.0 ms + scan 4.55 ms = ~8.6 ms. The eager time in
 * reference/pytorch-eager-h200.csv (7.78 ms, peak 13.19 GB = x + (32768, 32769) + (32767, 32769)
 * exactly) was measured on the older forward that sliced [:-1] along dim 0 (no contiguous copy,
 * output (32767, 32769)); expect eager's time on this forward to be ~8.6 ms.
 */
#include "kb/ref.h"

enum { BATCH = 32768, N = 32768 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor first = kb_unsqueeze(r, kb_squeeze(r, kb_narrow(r, x, 1, 0, 1), 1), 1); /* x.select(1, 0).unsqueeze(1) */
    kb_tensor zeros = kb_zeros_like(r, first);
    kb_tensor cat = kb_cat2(r, KB_NEW, zeros, x, 1);
    kb_drop(r, zeros); /* the tuple holding it dies when cat returns */
    kb_tensor exclusive = kb_narrow(r, cat, 1, 0, N);
    kb_cumsum(r, kb_arg(r, "y"), exclusive, 1); /* copies the strided view to a contiguous temporary first */
    kb_drop(r, cat);
}

KB_PROBLEM(.title = "cumsum exclusive",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, N), .terms = N)),
           .flops = 1.0 * BATCH * N) /* one add per element; zeros/cat/copy are data movement */
