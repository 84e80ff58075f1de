#!/usr/bin/env python3
"""tools/demo-l2/generate.py -- writes demo-naive's Level-2 samples: for every
problems/level2/NNN_name.c, submissions/demo-naive/level2/NNN_name/s0.cu, the problem's own
reference() chain (its op-library calls renamed to the naive kit's nk_ prefix) on the kit
sections it uses (tools/demo-l2/kit/*.cuh), with the problem's tensors checked in kb_forward.

Usage (from the repository root): python3 tools/demo-l2/generate.py [--out DIR] [NNN ...]
DIR defaults to the repository root; the samples land at DIR/submissions/demo-naive/level2/.
Writing into the repository, it also appends to submissions/demo-naive/manifest.csv a row for a
sample that has none (honest, pass expected everywhere; rows there are never changed), so a new
problem needs its two files and this command. NNN: only those problems (three digits); default
every Level-2 problem. Exit status 1 with a
message naming the problem and the reason when a chain calls something the kit does not have."""
import argparse
import ast
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
MODEL = 'demo-naive'
KIT_FILES = ['core', 'elementwise', 'gemm', 'conv', 'reduce', 'norm', 'softmax', 'pool']  # emission order
CONV_FLOPS = 5e12   # the kit's implicit-GEMM convolution (kit/conv.cuh's napkin math): keep in step
GEMM_FLOPS = 2e13   # the kit's 64x64 SGEMM (kit/gemm.cuh)
# identifiers of submission.h that a chain keeps: the dtypes and the ABI's structs
KEEP = {'kb_args', 'kb_input', 'kb_output', 'kb_dtype', 'KB_F32', 'KB_F16', 'KB_BF16', 'KB_F64', 'KB_I64',
        'KB_I32', 'KB_BOOL', 'KB_MAX_DIMS', 'KB_ABI_VERSION'}
BUILD = ('nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \\\n'
         ' *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu')


class GenError(Exception):
    pass


# ---- the kit ------------------------------------------------------------------------------------

MARKER = re.compile(r'^/\*@section (\S+)((?: [a-z]+=\S*)*)\*/$')


def load_kit():
    """[(file, preamble, [section])], section = dict(name, provides, needs, text, order)."""
    files, by_name, order = [], {}, 0
    for stem in KIT_FILES:
        path = os.path.join(HERE, 'kit', stem + '.cuh')
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        preamble, sections, cur = [], [], None
        for n, line in enumerate(lines, 1):
            m = MARKER.match(line)
            if m:
                attrs = dict(a.split('=', 1) for a in m.group(2).split())
                name = m.group(1)
                if name in by_name:
                    raise GenError('kit/%s.cuh:%d: section %s defined twice' % (stem, n, name))
                provides = [p for p in attrs.get('provides', '').split(',') if p]
                if not provides and re.match(r'(nk|NK)_', name):
                    provides = [name]
                cur = {'name': name, 'file': stem, 'provides': provides,
                       'needs': [p for p in attrs.get('needs', '').split(',') if p], 'lines': [], 'order': order}
                order += 1
                by_name[name] = cur
                sections.append(cur)
            elif line.startswith('/*@'):
                raise GenError('kit/%s.cuh:%d: malformed section marker' % (stem, n))
            elif cur is None:
                preamble.append(line)
            else:
                cur['lines'].append(line)
        for s in sections:
            s['text'] = '\n'.join(s['lines']).strip('\n')
        files.append((stem, '\n'.join(preamble).strip('\n'), sections))
    provider = {}
    for s in by_name.values():
        for need in s['needs']:
            if need not in by_name:
                raise GenError('kit section %s needs %s, which no kit file defines' % (s['name'], need))
            if by_name[need]['order'] > s['order']:
                raise GenError('kit section %s needs %s, which comes after it' % (s['name'], need))
        for p in s['provides']:
            if p in provider:
                raise GenError('%s is provided by kit sections %s and %s' % (p, provider[p], s['name']))
            provider[p] = s['name']
    return files, by_name, provider


def close_over(names, by_name):
    todo, seen = list(names), set()
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(by_name[n]['needs'])
    return seen


# ---- a problem ------------------------------------------------------------------------------------

def strip_comments(text):
    return re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)


def balanced(text, start):
    """text[start] is '('; the index just past its matching ')'."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == '(':
            depth += 1
        elif text[i] == ')':
            depth -= 1
            if depth == 0:
                return i + 1
    raise GenError('unbalanced parentheses')


def split_top(text):
    """Comma-separated items at parenthesis/brace depth 0."""
    items, depth, cur = [], 0, ''
    for c in text:
        if c in '({':
            depth += 1
        elif c in ')}':
            depth -= 1
        if c == ',' and depth == 0:
            items.append(cur.strip())
            cur = ''
        else:
            cur += c
    if cur.strip():
        items.append(cur.strip())
    return items


def call_args(text, macro):
    m = re.search(r'\b%s\(' % macro, text)
    if not m:
        raise GenError('no %s(...)' % macro)
    end = balanced(text, m.end() - 1)
    return text[m.end():end - 1]


def tensors(desc, macro):
    out = []
    for item in split_top(call_args(desc, macro)):
        m = re.match(r'KB_(INPUT|PARAM|STATE|OUTPUT)\(\s*"([^"]+)"\s*,\s*(KB_\w+)\s*,\s*(.*)\)$', item, re.S)
        if not m:
            raise GenError('%s: cannot read %r' % (macro, item[:60]))
        rest = m.group(4).strip()
        if rest.startswith('KB_SCALAR_DIMS'):
            dims = []
        elif rest.startswith('KB_DIMS('):
            dims = [' '.join(d.split()) for d in split_top(rest[len('KB_DIMS('):balanced(rest, len('KB_DIMS')) - 1])]
        else:
            raise GenError('%s: tensor %s has no KB_DIMS' % (macro, m.group(2)))
        out.append({'name': m.group(2), 'dtype': m.group(3), 'dims': dims})
    return out


def c_eval(expr, env):
    """A C constant expression of ints and doubles (enums, .flops): C's int division, casts read
    as what they do to the value."""
    expr = re.sub(r'\(\s*(?:int64_t|int)\s*\)', '', expr)
    expr = re.sub(r'\(\s*double\s*\)', '1.0 * ', expr)

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise GenError('unknown constant %s' % node.id)
            return env[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.Div):
                if isinstance(a, int) and isinstance(b, int):
                    q = abs(a) // abs(b)
                    return q if (a >= 0) == (b >= 0) else -q
                return a / b
            if isinstance(node.op, ast.Mod) and isinstance(a, int) and isinstance(b, int):
                return a - b * int(a / b)
        raise GenError('cannot evaluate %r' % expr)
    return ev(ast.parse(expr.strip(), mode='eval'))


def rename(text):
    def sub(m):
        word = m.group(0)
        return word if word in KEEP else ('nk_' if word.startswith('kb_') else 'NK_') + word[3:]
    return re.sub(r'\b(?:kb|KB)_\w+', sub, text)


def read_problem(path):
    with open(path, encoding='utf-8') as f:
        src = f.read()
    stem = os.path.basename(path)[:-2]
    m = re.match(r'/\*\n(.*?)\n \*/\n', src, re.S)
    if not m:
        raise GenError('no header comment')
    para = []
    for line in m.group(1).split('\n'):
        if line.strip() == '*':
            break
        para.append(line[3:] if line.startswith(' * ') else line.lstrip(' *'))
    inc = src.index('#include "kb/ref.h"\n') + len('#include "kb/ref.h"\n')
    ref = src.index('static void reference(kb_ref *r)\n')
    consts = src[inc:ref].strip('\n')
    body_end = src.index('\n}\n', ref) + 3
    chain = src[ref:body_end].rstrip('\n')
    desc = strip_comments(src[body_end:])
    env = {}
    for block in re.findall(r'enum\s*\{(.*?)\}\s*;', strip_comments(consts), re.S):
        for item in split_top(block):
            name, expr = item.split('=', 1)
            env[name.strip()] = c_eval(expr, env)
    fm = re.search(r'\.flops\s*=\s*(.*?)(?:,\s*\.\w+\s*=|\)\s*$)', desc, re.S)
    flops = float(c_eval(' '.join(fm.group(1).split()), env)) if fm else None
    fl = re.search(r'\.flags\s*=\s*([^,)]*)', desc)
    flags = set(re.findall(r'KB_PROB_\w+', fl.group(1))) if fl else set()
    title = re.search(r'\.title\s*=\s*"([^"]*)"', desc).group(1)
    return {'stem': stem, 'para': para, 'consts': consts, 'env': env, 'chain': chain, 'inputs': tensors(desc, 'KB_INPUTS'),
            'outputs': tensors(desc, 'KB_OUTPUTS'), 'flops': flops, 'flags': flags, 'title': title}


# ---- a sample ----------------------------------------------------------------------------------

def spec_table(name, ts):
    rows = []
    for t in ts:
        rows.append('    {"%s", %s, %d, {%s}},' % (t['name'], t['dtype'], len(t['dims']), ', '.join(t['dims'])))
    return 'static const nk_spec %s[] = {\n%s\n};' % (name, '\n'.join(rows))


def wrap(text, width=96, indent=' * '):
    words, lines, cur = text.split(), [], ''
    for w in words:
        if cur and len(cur) + 1 + len(w) > width - len(indent):
            lines.append(indent + cur)
            cur = w
        else:
            cur = w if not cur else cur + ' ' + w
    if cur:
        lines.append(indent + cur)
    return '\n'.join(lines)


def sample(p, kit):
    files, by_name, provider = kit
    consts, chain = rename(p['consts']), rename(p['chain'])
    used = sorted(set(re.findall(r'\b(?:nk|NK)_\w+\b', chain)))
    missing = [u for u in used if u not in provider]
    if missing:
        raise GenError('the kit has no %s' % ', '.join(missing))
    sections = close_over(['core'] + [provider[u] for u in used], by_name)

    ops = sorted({u for u in used if u not in ('nk_tensor', 'nk_ref', 'NK_NEW', 'nk_arg', 'nk_drop')})
    has_conv = any(u in ('nk_conv', 'nk_conv_transpose') for u in used)
    has_gemm = any(u in ('nk_linear', 'nk_matmul') for u in used)
    stem = p['stem']
    h = ['/*',
         wrap('%s, level2/%s, sample s0: the problem\'s forward chain on the naive kit\'s unfused kernels. '
              'Generated by tools/demo-l2/generate.py from problems/level2/%s.c and tools/demo-l2/kit/: a '
              'change goes there (then regenerate), never into this file.' % (MODEL, stem, stem)),
         ' *',
         ' * The problem (problems/level2/%s.c, "%s"):' % (stem, p['title'])]
    h += [' *   ' + line for line in p['para']]
    design = ('Design: reference() below is the problem\'s own chain, line for line, with the op library\'s '
              'names (kb_, KB_) renamed to the kit\'s (nk_, NK_): a submission cannot link the op library, and '
              'a reader should never mistake these calls for it. Every op is the kit\'s naive, unfused kernel '
              '(one launch per op; a normalisation is its statistics passes and one elementwise pass, a '
              'transposed convolution one launch per output residue class), written independently of ops/ '
              'and checked against it only by the pipeline. Temporaries are stream-ordered scratch '
              '(cudaMallocAsync on args->stream, counted by the memory profile), freed where the chain drops '
              'them. Exact FP32 (no TF32, no tensor cores), sums of many terms in blocked or double '
              'partials, 64-bit sizes and offsets, no atomics: the same bits on every call%s.'
              % (' but for the dropout mask' if 'nk_dropout' in used else ''))
    h += [' *', wrap(design)]
    h += [' *', wrap('Ops used: %s. Kit sections copied below (tools/demo-l2/kit/): %s.' % (
        ', '.join(ops), '; '.join('%s.cuh: %s' % (f, ', '.join(s['name'] for s in secs if s['name'] in sections))
                                  for f, _, secs in files if any(s['name'] in sections for s in secs))))]
    if p['flops']:
        rate, what = (CONV_FLOPS, 'the implicit-GEMM convolution\'s ~5 TFLOP/s') if has_conv else \
            (GEMM_FLOPS, 'the SGEMM\'s ~20 TFLOP/s') if has_gemm else (None, None)
        mant, exp = ('%.2e' % p['flops']).split('e')
        napkin = 'Napkin math: the problem counts %se%d FLOP' % (mant, int(exp))
        if rate:
            # the conv tile is 64 output channels wide: a layer with fewer leaves the rest idle
            cout = p['env'].get('COUT') if has_conv else None
            tile_use = cout / (-(-cout // 64) * 64) if cout else 1.0
            napkin += (' (nearly all of it in its %s); at %s%s that is ~%.0f ms%s, plus ~0.5 ms per GiB of '
                       'intermediate read and written by each elementwise op'
                       % ('convolution' if has_conv else 'GEMMs', what,
                          ' on the %.0f%% of the 64-channel tile its %d output channels use' % (100 * tile_use, cout)
                          if tile_use < 1 else '', p['flops'] / rate / tile_use * 1e3,
                          ' at least (a layer with few input channel x tap pairs per output also pads the '
                          'reduction\'s slices of 16)' if has_conv else ''))
        napkin += '. Not yet run on a GPU: these are estimates, not measurements.'
        h += [' *', wrap(napkin)]
    if 'KB_PROB_EXCLUDED' in p['flags']:
        h += [' *', wrap('The problem is excluded from the paper\'s tables (its file says why); it gets a sample all '
                         'the same, so that every Level-2 problem has one.')]
    if 'KB_PROB_NONDETERMINISTIC' in p['flags']:
        if 'nk_dropout' in used:
            note = ('Live dropout: the keep mask is the kit\'s own (a counter-based hash, seeded afresh on every '
                    'call from a call counter, never from the inputs), so the output cannot match PyTorch\'s '
                    'element for element; the problem is flagged nondeterministic for that reason.')
        else:
            note = ('The problem is flagged nondeterministic: its reference may differ from call to call (eager '
                    'PyTorch\'s kernels there may use atomics). This sample uses none: it is deterministic.')
        h += [' *', wrap(note)]
    h += [' *',
          ' * Build (the compile stage\'s command, hidden visibility so only kb_forward is exported):',
          ' *   ' + BUILD,
          ' *',
          ' * Return values: 0 success; 1 the arguments are not what this sample computes (count, names,',
          ' * dtypes, shapes); 2 a CUDA call (a launch, a scratch allocation) failed.',
          ' */']

    out = ['\n'.join(h)]
    for stem_k, preamble, secs in files:
        chosen = [s for s in secs if s['name'] in sections]
        if not chosen:
            continue
        out.append(preamble)
        for s in chosen:
            out.append(s['text'])
    out.append('/* ---- the problem (problems/level2/%s.c): its constants and reference() chain ---- */' % stem)
    if consts:
        out.append(consts)
    out.append(chain)
    out.append('/* its tensors: the forward arguments, then the parameters, in the .py order; the outputs */')
    out.append(spec_table('nk_inputs', p['inputs']))
    out.append(spec_table('nk_outputs', p['outputs']))
    out.append('\n'.join([
        'extern "C" int kb_forward(const kb_args *args)',
        '{',
        '    nk_ref r;',
        '    if (!nk_begin(&r, args, nk_inputs, sizeof nk_inputs / sizeof nk_inputs[0], nk_outputs,',
        '                  sizeof nk_outputs / sizeof nk_outputs[0]))',
        '        return NK_BAD_ARGS;',
        '    reference(&r);',
        '    return nk_end(&r);',
        '}']))
    return '\n\n'.join(out) + '\n'


def read_stem(path):
    return os.path.basename(path)[:-2]


def add_manifest_rows(stems):
    """Appends to the model's manifest.csv a row for each sample that has none (an honest sample,
    pass expected everywhere, as a new problem's starts); rows already there are never changed.
    Returns how many were added."""
    path = os.path.join(ROOT, 'submissions', MODEL, 'manifest.csv')
    with open(path, encoding='utf-8', newline='') as f:
        text = f.read()
    have = {line.split(',')[0] + ',' + line.split(',')[1] for line in text.splitlines()[1:] if line.count(',') >= 1}
    new = ['level2/%s,s0,honest,pass,pass,pass,,,' % st for st in stems if 'level2/%s,s0' % st not in have]
    if new:
        with open(path, 'a', encoding='utf-8', newline='') as f:
            f.write(('' if text.endswith('\n') else '\n') + '\n'.join(new) + '\n')
    return len(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', default=ROOT, help='directory the sample paths are relative to (default: the repository)')
    ap.add_argument('only', nargs='*', help='problem numbers (three digits); default all')
    a = ap.parse_args()
    try:
        kit = load_kit()
    except GenError as e:
        sys.exit('tools/demo-l2/generate.py: %s' % e)
    paths = sorted(glob.glob(os.path.join(ROOT, 'problems', 'level2', '[0-9][0-9][0-9]_*.c')))
    if a.only:
        paths = [q for q in paths if os.path.basename(q)[:3] in a.only]
    bad = 0
    for path in paths:
        rel = os.path.relpath(path, ROOT)
        try:
            p = read_problem(path)
            text = sample(p, kit)
        except (GenError, ValueError, KeyError, AttributeError) as e:
            print('%s: %s' % (rel, e), file=sys.stderr)
            bad += 1
            continue
        dest = os.path.join(a.out, 'submissions', MODEL, 'level2', p['stem'], 's0.cu')
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, 'w', encoding='utf-8', newline='') as f:
            f.write(text)
    rows = add_manifest_rows([read_stem(q) for q in paths]) if os.path.abspath(a.out) == os.path.abspath(ROOT) else 0
    print('tools/demo-l2/generate.py: %d samples written under %s%s%s'
          % (len(paths) - bad, a.out, ', %d problems failed' % bad if bad else '',
             ', %d manifest rows added' % rows if rows else ''))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
