"""Run 3's decomposition (paged S = 16, and S = 64 for the branch and ranges): the ratios
of run3/a.json (main in the bench's own slot) and run3/b.json (ranges in it).
  python3 ratios3.py   (from this directory)"""
import json, os
os.chdir(os.path.dirname(os.path.abspath(__file__)))
def name(kind, tag):
    base = {'p16': 'paged S=16', 'p64': 'paged S=64'}[kind]
    return base if tag == '' else f'{base} [{tag}]'
a = json.load(open('run3/a.json')); b = json.load(open('run3/b.json'))
own = {'a': 'main', 'b': 'ranges'}
print('| row | new/main | new/nospec | nospec/ranges | ranges/main | S=64 new/main, ranges/main (a) |')
print('|---|---|---|---|---|---|')
for i, r in enumerate(a['rows']):
    cells = []
    for n, d in (('new', 'main'), ('new', 'nospec'), ('nospec', 'ranges'), ('ranges', 'main')):
        vals = []
        for key, f in (('a', a), ('b', b)):
            I = f['rows'][i]['impls']
            t = lambda tag, k='p16': I[name(k, '' if tag == own[key] else tag)]['ms']
            vals.append(f"{t(n) / t(d):.3f}")
        cells.append(' / '.join(vals))
    I = a['rows'][i]['impls']
    s64 = f"{I[name('p64', 'new')]['ms'] / I[name('p64', '')]['ms']:.3f}, {I[name('p64', 'ranges')]['ms'] / I[name('p64', '')]['ms']:.3f}"
    print(f"| GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']} | " + ' | '.join(cells) + f" | {s64} |")
