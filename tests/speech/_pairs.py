from collections import Counter
from tests.speech.figures import outcomes, _inherited
from workgym_core.speech import Kind, reader
from replicas.catalog import lexicon
import sys
r = reader(lexicon()); pairs = Counter(); ex = {}
for o in outcomes():
    if o.abstained or o.correct or o.item['label']['kind'] != 'claim': continue
    st = [s for s in _inherited(r.read(o.item['text']).statements) if s.kind is Kind.CLAIM]
    got = tuple(sorted({s.claim for s in st}))
    want = o.item['label']['claim']
    if want in got and len(got) == 1: continue
    key = (want, got); pairs[key] += 1; ex.setdefault(key, []).append(o.item['text'])
for (want, got), n in pairs.most_common(int(sys.argv[1]) if len(sys.argv) > 1 else 40):
    print(n, want, '->', got, '|', ex[(want, got)][0][:110])
