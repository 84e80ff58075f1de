"""The paper's own timing loop under plain PyTorch, for a KernelBench-format sample built by
kb-compile: no harness, no sandbox, no IPC -- the file's ModelNew as the paper's evaluator runs
it (seeded construction, inputs from the spec's get_inputs() moved to the GPU, CUDA events around
model(*inputs), 3 warm-ups, then N timed calls, the mean). The extension is the compile stage's
(kbpy.runtime.install_prebuilt), so nothing is rebuilt. Trusted files only (our demos).

  python3 bench/paper-loop.py BUILD_DIR SPEC.py [TRIALS]   (BUILD_DIR = build/sub/<cell>)
prints: paper_loop_ms <mean> <n>
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py"))
import torch  # noqa: E402

from kbpy import runtime  # noqa: E402


def main(argv):
    d, spec_path = argv[1], argv[2]
    trials = int(argv[3]) if len(argv) > 3 else 100
    with open(os.path.join(d, "manifest.json")) as f:
        runtime.install_prebuilt(json.load(f), d, [0])
    spec = runtime.exec_file(spec_path, "spec")
    sub = runtime.exec_file(os.path.join(d, "kernel.py"), "sub")
    torch.manual_seed(42)
    model = sub.ModelNew(*spec.get_init_inputs()).cuda()
    torch.manual_seed(42)
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in spec.get_inputs()]
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        torch.cuda.synchronize()
        times = []
        for _ in range(trials):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            model(*inputs)
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
    print("paper_loop_ms %.6f %d" % (sum(times) / len(times), len(times)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
