"""Copy a bundle as a timing variant: python3 variant.py SRC_JSON DEST_DIR VARIANT"""
import json, os, shutil, sys
src, dest, variant = sys.argv[1:4]
d = json.load(open(src)); srcdir = os.path.dirname(src)
old = d["name"]; new = old + "_" + variant
d["name"] = new; d["select"]["variant"] = variant
for k in d["kernels"]:
    f = k["files"]
    for key in ("ptx",):
        if key in f:
            n = f[key].replace(old, new, 1); shutil.copy(os.path.join(srcdir, f[key]), os.path.join(dest, n)); f[key] = n
    for arch, c in f.get("cubins", {}).items():
        n = c["file"].replace(old, new, 1); shutil.copy(os.path.join(srcdir, c["file"]), os.path.join(dest, n)); c["file"] = n
json.dump(d, open(os.path.join(dest, new + ".json"), "w"), indent=1)
print(new)
