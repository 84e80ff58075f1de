#!/usr/bin/env python3
"""tools/demo-l2/emulate/check.py -- runs the demo-l2 kit and the generated Level-2 samples on the
CPU, under the CUDA emulation of include/cuda_runtime.h, for a machine without a GPU.

  check.py --kit          the kit's ops against double loops (kit_test.cpp; g++ only)
  check.py [NNN ...]      each sample (default: all of submissions/demo-naive/level2/) on a small
                          version of its problem, against the problem's own PyTorch module on
                          the CPU (needs torch: run it with a python that has it)

A small version: the problem's size constants (batch, channels, spatial and feature sizes; the
kernel sizes, strides, groups, pools and factors stay) set to small values in both the sample's
enums and the .py's module constants, matched by value under the names the two spell them with;
the sample's own kb_forward then checks that both agree on every tensor's shape. The module runs
in training mode (as KernelBench's), on get_inputs() and its own initial parameters, which the
sample receives in its spec order. Pass: every output element within 1e-4 of PyTorch's relative to
|y| + mean|y| (023, whose output is 0 up to rounding, within 1e-6 absolute), NaN and inf where
PyTorch has them. A live dropout (066) cannot match PyTorch's mask:
its line says MISMATCH by design. Exit status 1 if anything else does not pass.

Options: --work DIR (build directory, default a temporary one), --cxx (default g++)."""
import argparse
import ast
import glob
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
KIT = ['core', 'elementwise', 'gemm', 'conv', 'reduce', 'norm', 'softmax', 'pool']  # generate.py's order
MASK_DEPENDENT = {'066'}  # live dropout whose mask shows in the output
ROUNDING_NOISE = {'023'}  # an output that is 0 up to rounding (~1e-8): judged by an absolute 1e-6
# the sample's size constants and the names the .py gives them
ALIASES = {'BATCH': ['batch_size'], 'CIN': ['in_channels'], 'COUT': ['out_channels'], 'D': ['depth', 'D'],
           'H': ['height', 'H'], 'W': ['width', 'W'], 'IN': ['in_features', 'input_size'],
           'OUT': ['out_features', 'output_size'], 'HIDDEN': ['hidden_size', 'hidden_features', 'out_features']}
# a LayerNorm over the last dim whose size equals the channel count (003, 034): W chosen so that it stays so
SPECIAL = {'003': {'W': 3}, '034': {'W': 3}}

DRIVER = r'''
/* ---- check.py's driver: no argument: print the tensors; IN OUT: run kb_forward on IN's floats ---- */
int main(int argc, char **argv)
{
    const uint32_t ni = sizeof nk_inputs / sizeof nk_inputs[0], no = sizeof nk_outputs / sizeof nk_outputs[0];
    if (argc == 1) {
        for (uint32_t i = 0; i < ni + no; i++) {
            const nk_spec &s = i < ni ? nk_inputs[i] : nk_outputs[i - ni];
            printf("%s %s %d", i < ni ? "in" : "out", s.name, s.ndim);
            for (int d = 0; d < s.ndim; d++)
                printf(" %ld", (long)s.shape[d]);
            printf("\n");
        }
        return 0;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 9;
    static kb_input ins[64];
    static kb_output outs[8];
    for (uint32_t i = 0; i < ni + no; i++) {
        const nk_spec &s = i < ni ? nk_inputs[i] : nk_outputs[i - ni];
        int64_t n = 1;
        for (int d = 0; d < s.ndim; d++)
            n *= s.shape[d];
        float *p = (float *)malloc((size_t)n * 4 + 4);
        if (i < ni) {
            if (fread(p, 4, (size_t)n, f) != (size_t)n)
                return 9;
            ins[i] = kb_input{s.name, s.dtype, s.ndim, {0}, p};
            memcpy(ins[i].shape, s.shape, sizeof s.shape);
        } else {
            for (int64_t k = 0; k < n; k++)
                p[k] = NAN; /* as the strict protocol poisons outputs */
            outs[i - ni] = kb_output{s.name, s.dtype, s.ndim, {0}, p};
            memcpy(outs[i - ni].shape, s.shape, sizeof s.shape);
        }
    }
    fclose(f);
    const kb_args a = {KB_ABI_VERSION, ni, ins, no, outs, 0};
    const int rc = kb_forward(&a);
    FILE *g = fopen(argv[2], "wb");
    fwrite(&rc, 4, 1, g);
    for (uint32_t i = 0; i < no; i++) {
        int64_t n = 1;
        for (int d = 0; d < outs[i].ndim; d++)
            n *= outs[i].shape[d];
        fwrite(outs[i].data, 4, (size_t)n, g);
    }
    fclose(g);
    printf("%ld launches, %ld allocations left\n", emu_launches, emu_live_allocations);
    return 0;
}
'''


def balanced(t, i):
    depth = 0
    for j in range(i, len(t)):
        if t[j] == '(':
            depth += 1
        elif t[j] == ')':
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError('unbalanced parentheses after %r' % t[i:i + 40])


def rewrite_launches(text):
    """kernel<<<cfg>>>(args) -> emu_launch([&]() { kernel(args); }, cfg)"""
    out, pos = [], 0
    pat = re.compile(r'([A-Za-z_]\w*(?:<[^<>;()]*>)?)<<<(.*?)>>>\(', re.S)
    while True:
        m = pat.search(text, pos)
        if not m:
            out.append(text[pos:])
            return ''.join(out)
        end = balanced(text, m.end() - 1)
        out.append(text[pos:m.start()])
        out.append('emu_launch([&]() { %s(%s); }, %s)' % (m.group(1), text[m.end():end - 1], m.group(2)))
        pos = end


def build(src, exe, cxx):
    with open(exe + '.cpp', 'w', encoding='utf-8') as f:
        f.write(src)
    r = subprocess.run(['nice', cxx, '-std=c++17', '-O1', '-pthread', '-w', '-I' + os.path.join(HERE, 'include'),
                        '-I' + os.path.join(HERE), '-I' + os.path.dirname(exe), '-I' + os.path.join(ROOT, 'include'),
                        '-o', exe, exe + '.cpp'], capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def check_kit(work, cxx):
    kit = ''.join(open(os.path.join(ROOT, 'tools', 'demo-l2', 'kit', k + '.cuh'), encoding='utf-8').read() + '\n'
                  for k in KIT)
    with open(os.path.join(work, 'kit.h'), 'w', encoding='utf-8') as f:
        f.write(rewrite_launches(kit))
    exe = os.path.join(work, 'kit_test')
    ok, err = build(open(os.path.join(HERE, 'kit_test.cpp'), encoding='utf-8').read(), exe, cxx)
    if not ok:
        print(err[:4000])
        return False
    return subprocess.run(['nice', exe]).returncode == 0


def c_enums(text):
    env = {}
    for block in re.findall(r'enum\s*\{(.*?)\}\s*;', re.sub(r'/\*.*?\*/', ' ', text, flags=re.S), re.S):
        for item in block.split(','):
            if '=' in item:
                name, expr = item.split('=', 1)
                env[name.strip()] = int(eval(expr.replace('/', '//'), {}, dict(env)))
    return env


def small_sizes(env, num):
    groups, pool = env.get('GROUPS', 1), env.get('POOL', 1)
    step = groups * pool // math.gcd(groups, pool)
    table = {'BATCH': 3, 'CIN': min(env.get('CIN', 3), 3), 'COUT': 2 * groups if 'GROUPS' in env else min(env.get('COUT', 6), 6),
             'D': 6, 'H': 10, 'W': 9, 'IN': 300}
    small = {}
    for n in ALIASES:
        if n in env:
            small[n] = table[n] if n in table else (max(96, 2 * groups) + step - 1) // step * step
    small.update(SPECIAL.get(num, {}))
    return small


def shrink_py(src, over):
    """The .py with its module-level size assignments set to `over` (chained and tuple ones split)."""
    tree = ast.parse(src)
    body = []
    for node in tree.body:
        pairs = []
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    pairs.append((t.id, node.value))
                elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs += [(a.id, b) for a, b in zip(t.elts, node.value.elts)]
                else:
                    pairs = []
                    break
        if pairs and any(n in over for n, _ in pairs):
            for n, val in pairs:
                body.append(ast.Assign(targets=[ast.Name(n, ast.Store())],
                                       value=ast.Constant(over[n]) if n in over else val))
        else:
            body.append(node)
    tree.body = body
    return compile(ast.fix_missing_locations(tree), 'spec', 'exec')


def check_sample(num, work, cxx):
    import warnings
    import torch
    warnings.simplefilter('ignore', UserWarning)  # 028's InstanceNorm on one channel warns about num_features
    cpath = glob.glob(os.path.join(ROOT, 'problems', 'level2', '%s_*.c' % num))[0]
    stem = os.path.basename(cpath)[:-2]
    pysrc = open(cpath[:-2] + '.py', encoding='utf-8').read()
    sample = open(os.path.join(ROOT, 'submissions', 'demo-naive', 'level2', stem, 's0.cu'), encoding='utf-8').read()
    env = c_enums(open(cpath, encoding='utf-8').read())
    small = small_sizes(env, num)
    pyglob = {}
    exec(compile(pysrc, 'spec', 'exec'), pyglob)
    pyover = {}
    for n in small:
        alias = next((a for a in ALIASES[n] if pyglob.get(a) == env[n]), None)
        if alias is None:
            return stem, False, 'no .py constant for %s = %d' % (n, env[n])
        pyover[alias] = small[n]
    sample = re.sub(r'^enum \{.*?\};', lambda m: re.sub(
        r'\b([A-Z][A-Z0-9_]*) = (\d+)\b', lambda e: '%s = %d' % (e.group(1), small[e.group(1)])
        if e.group(1) in small else e.group(0), m.group(0)), sample, flags=re.S | re.M)
    exe = os.path.join(work, num)
    ok, err = build(rewrite_launches(sample) + DRIVER, exe, cxx)
    if not ok:
        return stem, False, 'build failed:\n' + err[:3000]
    specs = [line.split() for line in subprocess.run([exe], capture_output=True, text=True).stdout.split('\n') if line]
    g = {}
    exec(shrink_py(pysrc, pyover), g)
    torch.manual_seed(int(num))
    model = g['Model'](*g['get_init_inputs']())
    inputs = g['get_inputs']()
    params = dict(model.named_parameters())
    data = []
    for k, s in enumerate(x for x in specs if x[0] == 'in'):
        t = inputs[k] if k < len(inputs) else params.get(s[1])
        if t is None:
            return stem, False, 'the module has no tensor %s' % s[1]
        t = t if torch.is_tensor(t) else torch.tensor(t)
        if list(t.shape) != [int(v) for v in s[3:]]:
            return stem, False, '%s: PyTorch %s, the sample %s' % (s[1], list(t.shape), s[3:])
        data.append(t.detach().float().contiguous().numpy().tobytes())
    with open(exe + '.in', 'wb') as f:
        f.write(b''.join(data))
    with torch.no_grad():
        want = model(*inputs).double()
    r = subprocess.run(['nice', exe, exe + '.in', exe + '.out'], capture_output=True, text=True)
    if r.returncode:
        return stem, False, 'the run failed (%d): %s' % (r.returncode, r.stderr[-500:])
    raw = open(exe + '.out', 'rb').read()
    rc = struct.unpack('i', raw[:4])[0]
    if rc:
        return stem, False, 'kb_forward returned %d' % rc
    got = torch.frombuffer(bytearray(raw[4:]), dtype=torch.float32).reshape(want.shape).double()
    fin = want.isfinite() & got.isfinite()
    if num in ROUNDING_NOISE:
        err, limit, unit = (got - want).abs()[fin], 1e-6, 'absolute'
    else:
        err, limit, unit = ((got - want).abs() / (want.abs() + want[want.isfinite()].abs().mean() + 1e-30))[fin], 1e-4, \
            'of |y| + mean|y|'
    worst = err.max().item() if err.numel() else 0.0
    nan_bad = int(((got.isnan() != want.isnan()) | (want.isinf() & (got != want))).sum())
    passed = worst <= limit and nan_bad == 0
    sizes = ' '.join('%s=%d' % kv for kv in small.items())
    return stem, passed, 'worst %.2g %s, %d NaN/inf differences, y %s (%s; %s)' % (
        worst, unit, nan_bad, list(want.shape), sizes, r.stdout.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--kit', action='store_true', help="check the kit's ops (no torch needed)")
    ap.add_argument('--work', help='build directory (default: a temporary one)')
    ap.add_argument('--cxx', default='g++')
    ap.add_argument('problems', nargs='*', help='problem numbers (NNN); default all')
    a = ap.parse_args()
    tmp = None if a.work else tempfile.TemporaryDirectory(prefix='kb-demo-l2-emulate.')
    work = a.work or tmp.name
    os.makedirs(work, exist_ok=True)
    if a.kit:
        sys.exit(0 if check_kit(work, a.cxx) else 1)
    nums = a.problems or sorted(os.path.basename(p)[:3] for p in glob.glob(
        os.path.join(ROOT, 'submissions', 'demo-naive', 'level2', '[0-9][0-9][0-9]_*')))
    bad = 0
    for num in nums:
        try:
            stem, passed, what = check_sample(num, work, a.cxx)
        except Exception as e:  # a broken problem stops nothing else
            stem, passed, what = num, False, '%s: %s' % (type(e).__name__, e)
        expected_mismatch = num in MASK_DEPENDENT and not passed and what.startswith('worst')
        bad += not passed and not expected_mismatch
        print('%-8s %-66s %s' % ('ok' if passed else 'MISMATCH' if expected_mismatch else 'FAIL', stem,
                                 what + (' (live dropout: the mask is not PyTorch\'s)' if expected_mismatch else '')),
              flush=True)
    print('check.py: %d of %d samples agree with PyTorch%s' % (len(nums) - bad - sum(n in MASK_DEPENDENT for n in nums),
                                                               len(nums), ', %d FAIL' % bad if bad else ''))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
