"""Thirtieth session, run 2: per-kernel totals of ncu's source page (SASS): instructions
executed and warp-stall samples by reason, and the instructions grouped by opcode.
Usage: python3 stalls.py run2/l128k-source.log.gz [top]"""
import csv, gzip, sys, collections

def kernels(path):
    out, name, hdr = {}, None, None
    opener = gzip.open if path.endswith(".gz") else open
    for row in csv.reader(opener(path, "rt")):
        if not row:
            continue
        if row[0] == 'Kernel Name':
            name, hdr = row[1], None
            out[name] = []
        elif hdr is None:
            hdr = row
        else:
            out[name].append(dict(zip(hdr, row)))
    return out

def num(x):
    try:
        return float(x.replace(',', ''))
    except ValueError:
        return 0.0

def opcode(source):
    """The base opcode of a SASS line ('@P0 IMAD.WIDE.U32 ...' -> 'IMAD')."""
    words = source.split()
    return (words[1] if words[0].startswith('@') else words[0]).split('.')[0]


def main():
    ks = kernels(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    for name, rows in ks.items():
        executed = sum(num(r['Instructions Executed']) for r in rows)
        samples = sum(num(r['Warp Stall Sampling (All Samples)']) for r in rows)
        reasons = collections.Counter()
        for r in rows:
            for k, v in r.items():
                if k.startswith('stall_') and not k.endswith('(Not Issued)'):
                    reasons[k[6:]] += num(v)
        ops = collections.Counter()
        for r in rows:
            ops[opcode(r['Source'])] += num(r['Instructions Executed'])
        print(f"## {name}\ninstructions executed (warp level) {executed:,.0f}, stall samples {samples:,.0f}")
        print("stalls: " + ", ".join(f"{k} {v:,.0f}" for k, v in reasons.most_common(top)))
        print("opcodes: " + ", ".join(f"{k} {v:,.0f}" for k, v in ops.most_common(top + 8)))
        print()


if __name__ == "__main__":
    main()
