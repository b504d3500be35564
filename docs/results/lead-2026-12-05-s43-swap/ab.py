"""Time of the swapped loop's plans over main's in the same rounds (decode_bench JSON,
medians per call), and cuDNN's time over ours, per row: two processes with the slots
swapped (the first: swap in the main slot, main as variant `base`; the second the reverse).

  python3 ab.py run1/a.json run1/b.json    # sm_90a
  python3 ab.py run1/c.json run1/d.json    # sm_80 plans (sm_90 cubins)
"""
import json
import sys

FORMS = [("contiguous", "split_kv contiguous", "split_kv"), ("S=16", "paged S=16", "paged S=16"),
         ("S=64", "paged S=64", "paged S=64")]


def times(path):
    """{row: {(form, which): ms}} with which = swap or main."""
    data = json.load(open(path))
    out = {}
    swap_first = None
    for row in data["rows"]:
        name = "GQA %d/%d B=%d L=%d" % (row["Hq"], row["Hkv"], row["B"], row["L"])
        impls = row["impls"]
        first = "swap" if any(k.endswith("[base]") for k in impls) else "main"
        other = "main" if first == "swap" else "swap"
        swap_first = first == "swap"
        t = {}
        for form, plain, tagged in FORMS:
            t[(form, first)] = impls[plain]["ms"] * 1e3
            for k, v in impls.items():
                if k.startswith(tagged) and k.endswith("]") and "[" in k:
                    t[(form, other)] = v["ms"] * 1e3
        t["cudnn"] = impls["SDPA cuDNN"]["ms"] * 1e3
        out[name] = t
    return out, swap_first


def main(paths):
    runs = [times(p) for p in paths]
    rows = list(runs[0][0])
    head = ["row", "contiguous µs (main)", "cuDNN µs"]
    head += ["swap/main %s" % f for f, _, _ in FORMS]
    head += ["cuDNN/swap %s" % f for f, _, _ in FORMS]
    head += ["cuDNN/main %s" % f for f, _, _ in FORMS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))

    def span(values, fmt="%.3f"):
        lo, hi = min(values), max(values)
        return fmt % lo if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)

    for r in rows:
        cells = [r, span([t[r][("contiguous", "main")] for t, _ in runs], "%.1f"),
                 span([t[r]["cudnn"] for t, _ in runs], "%.1f")]
        for f, _, _ in FORMS:
            cells.append(span([t[r][(f, "swap")] / t[r][(f, "main")] for t, _ in runs]))
        for f, _, _ in FORMS:
            cells.append(span([t[r]["cudnn"] / t[r][(f, "swap")] for t, _ in runs]))
        for f, _, _ in FORMS:
            cells.append(span([t[r]["cudnn"] / t[r][(f, "main")] for t, _ in runs]))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
