#!/usr/bin/env python3
"""tools/demo-conv/generate.py -- writes demo-naive's convolution samples from sample.cu.in and
samples.csv (one row per sample: its path, the layer's geometry and the eager PyTorch time it is
compared with). Everything else in a sample (the layer as PyTorch writes it, the shapes, the GEMM
sizes, the napkin math) follows from the geometry, so no row can disagree with its own header.

Usage (from the repository root): python3 tools/demo-conv/generate.py [--out DIR]
DIR defaults to the repository root; the samples land at DIR/<path>."""
import argparse
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FP32_FLOPS = 5e12           # the template's napkin math says "~5 TFLOP/s" and "4.3 TB/s": keep in step
HBM_BYTES_PER_S = 4.3e12


def dims(text, n=None):
    v = [int(x) for x in text.split('x')]
    if n is not None and len(v) != n:
        raise ValueError('%r: want %d dimensions' % (text, n))
    return v


def ceil_to(a, b):
    return -(-a // b) * b


def pytorch_arg(v):
    """PyTorch's own spelling: one number when every dimension agrees, else a tuple."""
    return str(v[0]) if len(set(v)) == 1 else '(%s)' % ', '.join(map(str, v))


def valid_pairs(loop, hit, k, s, p, d):
    """(position, tap) pairs along one dimension whose partner lands inside the tensor: for a
    forward conv the loop runs over outputs and the partner x[o*s - p + k*d] must exist; for a
    transposed one over inputs, partner y[i*s - p + k*d]. Padding taps are not useful work."""
    n = 0
    for t in range(k):
        lo = max(0, -((t * d - p) // s))                  # ceil((p - t*d) / s)
        hi = min(loop - 1, (hit - 1 + p - t * d) // s)
        n += max(0, hi - lo + 1)
    return n


def sample(row, tile):
    BM, BN, BK = tile
    path = row['path']
    m = re.fullmatch(r'submissions/([^/]+)/level(\d)/(\d{3})_\w+/(s\d+)\.cu', path)
    if not m:
        raise ValueError('not a sample path')
    model, level, num, name = m.groups()
    tr = int(row['transposed'])
    bias = int(row['bias'])
    nb, cin, cout, groups = (int(row[c]) for c in ('batch', 'in_channels', 'out_channels', 'groups'))
    i = dims(row['input'])
    nsd = len(i)
    k, s, p, d, op = (dims(row[c], nsd) for c in ('kernel', 'stride', 'padding', 'dilation', 'output_padding'))
    if tr not in (0, 1) or bias not in (0, 1) or not 1 <= nsd <= 3 or cin % groups or cout % groups:
        raise ValueError('bad geometry')
    if tr:
        o = [(ii - 1) * ss - 2 * pp + dd * (kk - 1) + oo + 1 for ii, kk, ss, pp, dd, oo in zip(i, k, s, p, d, op)]
    else:
        if any(op):
            raise ValueError('output_padding is for transposed convolutions')
        o = [(ii + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for ii, kk, ss, pp, dd in zip(i, k, s, p, d)]
    cin_g, cout_g = cin // groups, cout // groups
    kvol = 1
    for v in k:
        kvol *= v
    isp = osp = 1
    for ii, oo in zip(i, o):
        isp, osp = isp * ii, osp * oo
    M, K = nb * osp, cin_g * kvol

    useful = 2 * nb * groups * cin_g * cout_g
    for ii, oo, kk, ss, pp, dd in zip(i, o, k, s, p, d):
        useful *= valid_pairs(ii, oo, kk, ss, pp, dd) if tr else valid_pairs(oo, ii, kk, ss, pp, dd)
    issued = 2 * ceil_to(M, BM) * ceil_to(cout_g, BN) * groups * ceil_to(K, BK)
    # Transposed with stride s, a tap reaches output o only where (o + p - k*d) % s == 0: the
    # most taps any one output sums (the best residue per dimension) bounds its error.
    products = K
    if tr:
        products = cin_g
        for kk, ss, dd in zip(k, s, d):
            products *= max(sum(1 for t in range(kk) if t * dd % ss == r) for r in range(ss))
    xbytes, ybytes = 4 * nb * cin * isp, 4 * nb * cout * osp

    args = [str(cin), str(cout), pytorch_arg(k)]
    for kw, v, default in (('stride', s, 1), ('padding', p, 0), ('output_padding', op, 0), ('dilation', d, 1)):
        if any(x != default for x in v):
            args.append('%s=%s' % (kw, pytorch_arg(v)))
    if groups != 1:
        args.append('groups=%d' % groups)
    args.append('bias=%s' % bool(bias))

    pad3 = lambda v, fill: [fill] * (3 - nsd) + v
    val = {
        'MODEL': model, 'PROBLEM': 'level%s/%s' % (level, path.split('/')[3]), 'SAMPLE': name,
        'KB_REF': 'L%s/%d' % (level, int(num)),
        'LAYER': 'nn.Conv%s%dd(%s)' % ('Transpose' if tr else '', nsd, ', '.join(args)),
        'X_SHAPE': '(%s)' % ', '.join(map(str, [nb, cin] + i)),
        'Y_SHAPE': '(%s)' % ', '.join(map(str, [nb, cout] + o)),
        'M': M, 'COUT_G': cout_g, 'K': K, 'PRODUCTS': products,
        'ZERO_WHERE': 'the input, and where (o + p - k*d) is not a multiple of the stride: the transposed '
                      'convolution is the gather form, y[o] = sum x[(o + p - k*d)/s] w[k]' if tr
                      else 'the input / in the padding',
        'USEFUL_FLOP': '%.3g' % useful, 'ISSUED_FLOP': '%.3g' % issued,
        'WASTE': 'padded tiles, zero stride taps' if tr and max(s) > 1 else 'padded tiles',
        'USEFUL_PCT': '%.0f' % (100.0 * useful / issued),
        'COMPUTE_MS': '%.0f' % (issued / FP32_FLOPS * 1e3),
        'X_GIB': '%.2f' % (xbytes / 2**30), 'Y_GIB': '%.2f' % (ybytes / 2**30),
        'TRAFFIC_MS': '%.2f' % ((xbytes + ybytes) / HBM_BYTES_PER_S * 1e3),
        'EAGER_MS': row['eager_ms'],
        'TRANSPOSED': tr, 'HAS_BIAS': bias, 'NB': nb, 'CIN': cin, 'COUT': cout, 'GROUPS': groups, 'NSD': nsd,
    }
    for letter, v, fill in (('I', i, 1), ('K', k, 1), ('O', o, 1), ('S', s, 1), ('P', p, 0), ('D', d, 1)):
        for j, x in enumerate(pad3(v, fill)):
            val['%s%d' % (letter, j)] = x
    return path, val


def fill(template, val):
    used = set()

    def sub(m):
        if m.group(1) not in val:
            raise ValueError('sample.cu.in names {{%s}}, which generate.py does not compute' % m.group(1))
        used.add(m.group(1))
        return str(val[m.group(1)])
    out = re.sub(r'\{\{([A-Z0-9_]+)\}\}', sub, template)
    if used != set(val):
        raise ValueError('values the template does not use: %s' % ', '.join(sorted(set(val) - used)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', default='.', help='directory the sample paths are relative to (default: .)')
    a = ap.parse_args()
    with open(os.path.join(HERE, 'sample.cu.in'), encoding='utf-8', newline='') as f:
        template = f.read()
    # the issued-FLOP figure depends on the tile, so it is read from the template's own #defines
    tile = [int(re.search(r'^#define %s (\d+)' % n, template, re.M).group(1)) for n in ('BM', 'BN', 'BK')]
    with open(os.path.join(HERE, 'samples.csv'), encoding='utf-8', newline='') as f:
        rows = list(csv.DictReader(f))
    for n, row in enumerate(rows, 2):
        try:
            path, val = sample(row, tile)
            text = fill(template, val)
        except (KeyError, ValueError) as e:
            sys.exit('tools/demo-conv/samples.csv:%d: %s: %s' % (n, row.get('path'), e))
        dest = os.path.join(a.out, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, 'w', encoding='utf-8', newline='') as f:
            f.write(text)
    print('tools/demo-conv/generate.py: %d samples written under %s' % (len(rows), a.out))


if __name__ == '__main__':
    main()
