import sys
from collections import Counter
from tests.speech.figures import outcomes, _inherited, _MODALITY
from workgym_core.speech import Kind
from replicas.catalog import lexicon
from workgym_core.speech import reader
r = reader(lexicon())
cats = Counter(); ex = {}
lang = sys.argv[1] if len(sys.argv) > 1 else None
for o in outcomes():
    if o.abstained or o.correct: continue
    if lang and o.language != lang: continue
    label = o.item['label']
    st = _inherited(r.read(o.item['text']).statements)
    claims = [s for s in st if s.kind is Kind.CLAIM]
    if label['hedged']: c = 'hedge-missed'
    elif label['kind'] in ('benign','amount','unreadable'): c = f"{label['kind']}-misread"
    elif not claims: c = 'no-claim'
    else:
        names = {s.claim for s in claims}
        if label['claim'] not in names: c = 'wrong-claim'
        elif len(names) > 1: c = 'extra-claim'
        else:
            s = next(s for s in claims if s.claim == label['claim'])
            if s.polarity.value != label['polarity']: c = 'polarity'
            elif _MODALITY.get(s.modality, s.modality.value) != label['modality']: c = f"modality {label['modality']}->{_MODALITY.get(s.modality, s.modality.value)}"
            else: c = 'entities'
    cats[c] += 1; ex.setdefault(c, []).append((o.item['text'], label, o.got))
for c, n in cats.most_common(): print(n, c)
if len(sys.argv) > 2:
    for t, l, g in ex.get(sys.argv[2], [])[:int(sys.argv[3]) if len(sys.argv) > 3 else 30]:
        print('  ', t, '\n     ', {k: l[k] for k in ('claim','polarity','modality')}, [e['kind']+':'+str(e['value']) for e in l['entities']], '\n      got', g)
