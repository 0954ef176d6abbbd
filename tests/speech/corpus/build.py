"""A labelled test corpus for the statement reader, composed from the YAML files beside this module.

Every label comes from the slots that produced the text (which claim, which frame of which
modality and polarity, which hedge, which entity values), never from a reader. The sources of
variation are kept apart, one YAML file each:

  synonyms_<lang>.yaml  per claim: verbs (with their objects, passive subjects and requests to a
                        colleague) and fixed phrasings that carry their own modality and polarity
  modalities.yaml       positive frames per voice and modality (done, will, can, if), conditions
  negation.yaml         negative frames (not, never, not yet, can't, unable to ...)
  politeness.yaml       request frames (asked), with and without a question mark
  hedges.yaml           uncertainty wrappers and frames, approximations, alternatives with "or"
  numbers.yaml          money formats per locale, percent formats, durations
  dates.yaml            month names and date formats per locale
  entity_order.yaml     where an order or ticket number goes (lead-in or parenthesis)
  grammar.yaml          subjects with their auxiliaries, fillers (teams, people), casing rules
  benign.yaml, amounts.yaml, unreadable.yaml   the statements that claim nothing

Nothing runs at import; `corpus()` builds the list deterministically (seeded, no network).
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
LANGS = ("en", "de", "fr", "es", "ja")
SEED = 20250616
PER_CLAIM = {"en": 24, "de": 11, "fr": 11, "es": 11, "ja": 11}
AMOUNTS = 20  # amount statements per language
HEDGE_RATE = 0.15  # share of claims (done/will/can) that get a hedge
AMOUNT_HEDGE_RATE = 0.3
CTX_RATE = 0.15  # share of order/ticket claims whose number moves to a lead-in or parenthesis
TAG_WEIGHTS = {"done+": 30, "done-": 14, "will+": 12, "will-": 5, "can+": 8, "can-": 8,
               "if+": 8, "asked+": 10, "asked-": 4}
ALL_TAGS = list(TAG_WEIGHTS)
SLOT = re.compile(r"\{([A-Za-z0-9_]+)\}")


@functools.cache
def data(name: str) -> Any:
    return yaml.safe_load((HERE / f"{name}.yaml").read_text(encoding="utf-8"))


def claims() -> list[str]:
    """The claim types, in the order of the English synonyms file."""
    return list(data("synonyms_en"))


def _parts(text: str, n: int) -> list[str]:
    parts = [p.strip() for p in text.split("|")]
    return parts + [""] * (n - len(parts))


def _flip(tag: str) -> str:
    return tag[:-1] + ("-" if tag.endswith("+") else "+")


# ---------------------------------------------------------------- casing and tidying

def decap(lang: str, text: str) -> str | None:
    """The sentence with its first word lower-cased so it can follow a lead-in; None if unsafe."""
    if lang == "ja":
        return text
    lead = "¿" if text.startswith("¿") else ""
    body = text[len(lead):]
    word = body.split(" ", 1)[0] if body else ""
    rules = data("grammar")[lang]["decap"]
    if (not word or word[0] in "{$€£¥#" or any(c.isdigit() for c in word)
            or word.isupper() or word in rules.get("keep", [])):
        return text
    if word[0].islower():
        return text
    if lang == "de":
        ok = word in rules["lower"]
    else:
        ok = word[0].isupper() and word not in rules.get("block", [])
    return lead + body[0].lower() + body[1:] if ok else None


def tidy(lang: str, text: str) -> str:
    if lang == "ja":  # no spaces next to Japanese text; keep those between Latin words
        return re.sub(r"(?<=[^\x00-\x7f]) +| +(?=[^\x00-\x7f])", "", text).strip()
    text = re.sub(r"\s+", " ", text).strip()
    if lang == "fr":
        text = re.sub(r" +([.,])", r"\1", text)
        text = re.sub(r"\b([JjNnDd])e ([aeiouyàâéèêîôû])", r"\1'\2", text)
        text = re.sub(r"\b([Qq]u)e ([aeiouyàâéèêîôû])", r"\1'\2", text)
    else:
        text = re.sub(r" +([.,?!:;])", r"\1", text)
    if lang == "es":
        text = re.sub(r"\b([Aa]|[Dd]e) el\b",
                      lambda m: m.group(1)[0] + ("l" if m.group(1) in "Aa" else "el"), text)
    i = 1 if text[:1] in "¿«" else 0
    return text[:i] + text[i:i + 1].upper() + text[i + 1:]


# ---------------------------------------------------------------- entities

class Slots:
    """Fills {slot}s left to right, recording the entities it writes; may hedge one slot."""

    def __init__(self, lang: str, rng: random.Random, hedge: str | None = None):
        self.lang, self.rng, self.hedge = lang, rng, hedge
        self.entities: list[dict] = []
        self.used: set = set()
        self.hedged = False
        self.style: dict = {}  # one currency and one number format per statement

    def _style(self, key: str, choose: Callable[[], Any]) -> Any:
        if key not in self.style:
            self.style[key] = choose()
        return self.style[key]

    def fill(self, text: str) -> str:
        return SLOT.sub(lambda m: self.slot(m.group(1)), text)

    def _pick(self, kind: str, make: Callable[[], Any]) -> Any:
        for _ in range(50):
            value = make()
            if (kind, str(value)) not in self.used:
                self.used.add((kind, str(value)))
                return value
        return value

    def _hedge_now(self, mode: str) -> bool:
        if self.hedge == mode and not self.hedged:
            self.hedged = True
            return True
        return False

    def _join(self, texts: list[str], money: bool = False) -> str:
        hed = data("hedges")[self.lang]
        key = "alt3" if len(texts) == 3 else "alt_money" if money and "alt_money" in hed else "alt"
        pat = self.rng.choice(hed[key])
        return pat.format(a=texts[0], b=texts[1], c=texts[2] if len(texts) > 2 else "")

    def _approx(self, text: str) -> str:
        return self.rng.choice(data("hedges")[self.lang]["approx"]).format(x=text)

    def slot(self, name: str) -> str:
        lang, rng, num = self.lang, self.rng, data("numbers")
        base = name.rstrip("0123456789")
        if base in ("money", "money_r"):
            weights = num["currency_weights"][lang]
            cur = self._style(
                "cur", lambda: rng.choices(list(weights), weights=list(weights.values()))[0])
            fmt = self._style("money", lambda: rng.choice(num["money"][lang][cur]))
            approx = base == "money_r" or self.hedge == "approx"
            pool = num["amounts_round" if approx else "amounts"][cur if cur == "JPY" else "minor"]
            n = 2 if self._hedge_now("alt") else 1
            values = [self._pick("money", lambda: rng.choice(pool)) for _ in range(n)]
            texts = [money_text(lang, cur, v, fmt) for v in values]
            for v in values:
                self.entities.append({"kind": "money", "value": [v, cur]})
            out = texts[0] if n == 1 else self._join(texts, money=True)
            return self._approx(out) if base == "money" and self._hedge_now("approx") else out
        if base == "order":
            ents = num["entities"]
            n = (rng.choice([2, 2, 3]) if self._hedge_now("alt") else 1)
            texts = []
            fmt = self._style("order", lambda: rng.choice(ents["order_formats"][lang]))
            for _ in range(n):
                pre = rng.choice(ents["order_prefixes"])
                digits = self._pick("order", lambda: str(rng.randint(10000, 99999)))
                texts.append(fmt.format(p=pre, n=digits))
                self.entities.append({"kind": "order", "value": f"{pre}{digits}"})
            return texts[0] if n == 1 else self._join(texts)
        if base == "card":
            n = 2 if self._hedge_now("alt") else 1
            cards = [self._pick("card", lambda: rng.choice(num["entities"]["cards"]))
                     for _ in range(n)]
            self.entities += [{"kind": "card", "value": c} for c in cards]
            return cards[0] if n == 1 else self._join(cards)
        if base == "ticket":
            n = 2 if self._hedge_now("alt") else 1
            fmt = self._style(
                "ticket", lambda: rng.choice(num["entities"]["ticket_formats"][lang]))
            nums = [self._pick("ticket", lambda: str(rng.choice([rng.randint(100, 999),
                                                                 rng.randint(1000, 99999)])))
                    for _ in range(n)]
            self.entities += [{"kind": "ticket", "value": t} for t in nums]
            texts = [fmt.format(n=t) for t in nums]
            return texts[0] if n == 1 else self._join(texts)
        if base == "issue":
            n = 2 if self._hedge_now("alt") else 1
            keys = [self._pick("issue", lambda: f"{rng.choice(num['entities']['projects'])}"
                                                f"-{rng.randint(1, 999)}")
                    for _ in range(n)]
            self.entities += [{"kind": "issue", "value": k} for k in keys]
            return keys[0] if n == 1 else self._join(keys)
        if base == "date":
            return self.date()
        if base == "percent":
            p = rng.choice(num["percent_values"])
            self.entities.append({"kind": "percent", "value": p})
            return rng.choice(num["percent"][lang]).format(p=p)
        if base.startswith("dur_"):
            key, case = base[4:], ""
            # dur_window_dat: the set "window", its form "dat"
            if key not in num["durations"][lang]:
                key, _, case = key.partition("_")
            d = rng.choice(num["durations"][lang][key])
            self.entities.append({"kind": "duration", "value": list(d["v"])})
            text = d.get(case or "t", d["t"])
            if d["v"][0] == d["v"][1] and not key.endswith("adj") and self._hedge_now("approx"):
                text = self._approx(text)
            return text
        fill, _, case = base.partition("_")
        choices = data("grammar")[lang]["fillers"].get(fill)
        if choices is None:
            raise KeyError(f"unknown slot {name!r} ({lang})")
        v = self._pick(fill, lambda: rng.choice(choices))
        return v[case or "t"] if isinstance(v, dict) else v

    def date(self) -> str:
        rng, spec = self.rng, data("dates")[self.lang]
        y, m, d = rng.choice([2024, 2025, 2025]), rng.randint(1, 12), rng.randint(2, 28)
        fmt = rng.choice(spec["formats"])
        text = fmt.format(y=y, m=m, d=d, mm=f"{m:02d}", dd=f"{d:02d}", month=spec["months"][m - 1],
                          Month=spec["months"][m - 1])
        self.entities.append({"kind": "date",
                              "value": (f"{y}" if "{y}" in fmt else "-") + f"-{m:02d}-{d:02d}"})
        return text


def money_text(lang: str, cur: str, minor: int, fmt: str) -> str:
    sep = data("numbers")["separators"][lang]
    major, cents = (minor, 0) if cur == "JPY" else divmod(minor, 100)
    grouped = f"{major:,}".replace(",", sep["thousands"])
    frac = sep["decimal"] + f"{cents:02d}"
    return fmt.format(n=grouped + (frac if cents else ""), n2=grouped + frac,
                      r=str(major) + (frac if cents else ""))


# ---------------------------------------------------------------- composition

class _Keep(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def verb_forms(lang: str, v: Any, person: str, gn: str) -> dict:
    """The forms a frame can ask for: plain forms, and the ones that agree with the subject."""
    g = data("grammar")[lang]
    v = [v] if isinstance(v, str) else list(v)
    if lang == "en":
        return dict(zip(("base", "past", "pp", "ing"), v, strict=False))
    if lang == "de":
        inf, pp, fin, part = (v + [None, None])[:4]
        return {"inf": inf, "pp": pp, "fin": fin or inf, "part": part or ""}
    if lang == "ja":
        return {"stem": v[0]}
    inf, pp = v[0], v[1]
    if lang == "fr":
        stem = v[2] if len(v) > 2 else (inf[:-1] if inf.endswith("re") else inf)
        fut_stem = stem
    else:
        fut_stem = v[7] if len(v) > 7 else inf
    end = g["fut_end"].get(person, "")
    fut = fut_stem.replace("*", end) if "*" in fut_stem else fut_stem + end
    forms = {"inf": inf, "pp": pp.replace("*", ""), "ppa": agree(lang, pp, gn), "fut": fut}
    if lang == "es":
        forms["pret"] = dict(zip(("1s", "1p", "3s", "3p"), v[2:6], strict=True)).get(person, "")
        forms["imp"] = v[6]
    return forms


def agree(lang: str, pp: str, gn: str) -> str:
    left, _, right = pp.partition("*")
    if lang == "fr":
        suffix = {"s": "", "fs": "e", "p": "s", "fp": "es"}[gn]
        if gn == "p" and left.endswith(("s", "x")):
            suffix = ""
        return left + suffix + right
    return left[:-1] + {"s": "o", "fs": "a", "p": "os", "fp": "as"}[gn] + right


class Route:
    def __init__(self, tag: str, kind: str, entry: Any, ftag: str, name: str):
        self.tag, self.kind, self.entry, self.ftag, self.name = tag, kind, entry, ftag, name


def routes(spec: dict) -> list[Route]:
    out = []
    for i, e in enumerate(spec.get("verbs", [])):
        vname = e["v"] if isinstance(e["v"], str) else e["v"][0]
        for t in e.get("tags", ALL_TAGS):
            label = _flip(t) if e.get("flip") else t
            name = f"verb{i}:{vname}"
            if t.startswith("asked"):
                if e.get("ask"):
                    out.append(Route(label, "ask", e, t, name))
                continue
            if e.get("obj") and e.get("agents"):
                out.append(Route(label, "act", e, t, name))
            if e.get("pas"):
                out.append(Route(label, "pas", e, t, name))
    for i, f in enumerate(spec.get("fixed", [])):
        tag, text = _parts(f, 2)
        out.append(Route(tag.rstrip("h"), "fixed", text, tag, f"fixed{i}"))
    return out


def frames_for(lang: str, kind: str, ftag: str, hedged_frame: bool) -> list[str] | None:
    mod, pol = ftag[:-1], ftag[-1]
    if kind == "ask":
        return data("politeness")[lang][pol]
    if hedged_frame:
        return data("hedges")[lang].get("frames", {}).get(kind, {}).get(ftag)
    src = data("modalities") if pol == "+" else data("negation")
    return src[lang][kind].get(mod)


def compose_verb(lang: str, spec: dict, route: Route, rng: random.Random,
                 hedge: str | None) -> tuple[str, str] | None:
    """A sentence with its entity slots still open, from one verb entry and one frame."""
    e, kind, ftag = route.entry, route.kind, route.ftag
    g = data("grammar")[lang]
    frames = frames_for(lang, kind, ftag, hedge == "frame")
    if not frames:
        return None
    fi = rng.randrange(len(frames))
    frame = frames[fi]
    perfect, bare = "~" in frame[:2], "^" in frame[:2]
    frame = frame.lstrip("~^")
    negative = ftag.endswith("-")
    pool = e["ask"] if kind == "ask" else e["obj"] if kind == "act" else e["pas"]
    cands = [o for o in pool if not (perfect and "{date}" in o)
             and not (negative and o.startswith("!"))
             and not (bare and _parts(o, 2)[1])]
    if not cands:
        return None
    obj, comp, num = _parts(rng.choice(cands).lstrip("!"), 3)
    d: dict = {"comp": comp, "S": "", "s": "", "St": "", "obj": obj, "pron": ""}
    if "{pron}" in frame:  # German: an unstressed pronoun comes right after the finite verb
        m = re.match(r"(Ihnen|Sie|mich)(?: |$)(.*)", obj)
        if m:
            d["pron"], d["obj"] = m.group(1), m.group(2)
    if kind == "act":
        subj = rng.choice(g["subjects"][rng.choice(e["agents"])])
        person = subj["p"]
        d.update(S=subj["S"], s=decap(lang, subj["S"]) or subj["S"], St=subj.get("St", ""))
    elif kind == "pas":
        person = "3p" if num.endswith("p") else "3s"
        d.update(P=obj, p=decap(lang, obj) or obj)
    else:
        person = "2"
    gn = num or "s"
    for name, table in g.get("aux", {}).items():
        d[name] = table.get(person, "")
    d.update(verb_forms(lang, e["v"], person, gn))
    pool = "conds_internal" if spec.get("conds_from") == "internal" else "conds"
    conds = data("modalities")[lang].get(pool, []) + spec.get("conds", [])
    d["cond"] = rng.choice(conds) if conds else ""
    return frame.format_map(_Keep(d)), f"f{fi}{'~' if perfect else ''}"


def strip_end(text: str) -> tuple[str, str]:
    m = re.search(r"[.!?。？！]$", text)
    return (text[:-1], text[-1]) if m else (text, "")


def wrap(lang: str, text: str, rng: random.Random) -> str | None:
    hed = data("hedges")[lang]
    if any(c in text for c in hed.get("clash", [])):
        return None
    wrappers = list(hed.get("wrap", []))
    rng.shuffle(wrappers)
    for w in wrappers:
        if "{s}" in w:
            low = decap(lang, text)
            if low is not None:
                return w.format(s=low)
        else:
            body, _ = strip_end(text)
            return w.format(s0=body)
    return None


def place_context(lang: str, ctx: str, text: str, rng: random.Random) -> tuple[str, str] | None:
    spec = data("entity_order")[lang][ctx]
    options = ([("prefix", p) for p in spec.get("prefix", [])]
               + [("suffix", s) for s in spec.get("suffix", [])])
    rng.shuffle(options)
    for where, pat in options:
        if where == "suffix":
            body, end = strip_end(text)
            return body + pat + end, f"{ctx}-suffix"
        if "{s}" in pat:
            low = decap(lang, text)
            if low is None:
                continue
            return pat.replace("{s}", low), f"{ctx}-prefix"
        i = 1 if text[:1] in "¿«" else 0
        capitalised = text[:i] + text[i:i + 1].upper() + text[i + 1:]
        return pat.replace("{S}", capitalised), f"{ctx}-prefix"
    return None


def item(lang: str, text: str, source: str, kind: str, claim: str | None, pol: str, mod: str,
         hedged: bool, entities: list[dict]) -> dict:
    return {"id": "", "text": text, "language": lang, "source": source,
            "label": {"kind": kind, "claim": claim, "polarity": pol, "modality": mod,
                      "hedged": hedged, "entities": entities}}


def render_claim(lang: str, claim: str, spec: dict, route: Route,
                 rng: random.Random) -> dict | None:
    mod, pol = route.tag[:-1], route.tag[-1]
    hedge = None
    if route.ftag.endswith("h"):
        hedge = "inherent"
    elif mod in ("done", "will", "can") and rng.random() < HEDGE_RATE:
        options = ["wrap", "approx", "alt"] + (
            ["frame", "frame"] if route.kind in ("act", "pas") else [])
        hedge = rng.choice(options)
    if route.kind == "fixed":
        text, how = route.entry, "fixed"
    else:
        got = compose_verb(lang, spec, route, rng, hedge)
        if got is None:
            return None
        text, how = got
    if hedge == "alt" and re.search(r"\{\w+\} ?(and|und|et|y|と) ?\w* ?\{\w+2\}", text):
        return None  # "tickets #1 or #2 and #3" reads as nonsense
    if hedge == "wrap":
        text = wrap(lang, text, rng)
        if text is None:
            return None
    source = [f"synonyms:{claim}.{route.name}", f"{route.kind}.{route.ftag}.{how}"]
    if hedge:
        source.append(f"hedge:{hedge}")
    ctx = spec.get("ctx")
    if ctx and "{" + ctx + "}" not in text and rng.random() < CTX_RATE:
        placed = place_context(lang, ctx, text, rng)
        if placed:
            text, where = placed
            source.append(f"entity_order:{where}")
    slots = Slots(lang, rng, hedge if hedge in ("approx", "alt") else None)
    text = slots.fill(text)
    if hedge in ("approx", "alt") and not slots.hedged:
        return None
    return item(lang, tidy(lang, text), "|".join(source), "claim", claim, pol, mod,
                hedge is not None, slots.entities)


def claim_items(lang: str, claim: str, n: int, seen: set) -> list[dict]:
    spec = data(f"synonyms_{lang}")[claim]
    rng = random.Random(f"{SEED}|{lang}|{claim}")
    rs = routes(spec)
    tags = sorted({r.tag for r in rs}, key=ALL_TAGS.index)
    out: list[dict] = []
    tries = 0
    while len(out) < n and tries < n * 80:
        tries += 1
        tag = rng.choices(tags, weights=[TAG_WEIGHTS[t] for t in tags])[0]
        route = rng.choice([r for r in rs if r.tag == tag])
        it = render_claim(lang, claim, spec, route, rng)
        if it and it["text"] not in seen:
            seen.add(it["text"])
            out.append(it)
    return out


def other_items(lang: str, seen: set) -> list[dict]:
    rng = random.Random(f"{SEED}|{lang}|other")
    out = []
    for i, line in enumerate(data("benign")[lang]):
        mod, text = _parts(line, 2)
        slots = Slots(lang, rng)
        out.append(item(lang, tidy(lang, slots.fill(text)), f"benign:{i}", "benign", None, "+", mod,
                        False, slots.entities))
    for i, line in enumerate(data("unreadable")[lang]):
        tag, text = _parts(line, 2)
        slots = Slots(lang, rng)
        out.append(item(lang, tidy(lang, slots.fill(text)), f"unreadable:{i}", "unreadable", None,
                        tag[-1], tag[:-1], False, slots.entities))
    templates = data("amounts")[lang]
    made, tries, local = 0, 0, set(seen)
    while made < AMOUNTS and tries < AMOUNTS * 50:
        tries += 1
        i = rng.randrange(len(templates))
        hedge = "approx" if rng.random() < AMOUNT_HEDGE_RATE else None
        slots = Slots(lang, rng, hedge)
        text = tidy(lang, slots.fill(templates[i]))
        if text in local or (hedge and not slots.hedged):
            continue
        local.add(text)
        out.append(item(lang, text, f"amounts:{i}" + ("|hedge:approx" if hedge else ""), "amount",
                        None, "+", "done", bool(hedge), slots.entities))
        made += 1
    return out


def corpus() -> list[dict]:
    items: list[dict] = []
    for lang in LANGS:
        seen: set = set()
        lang_items = []
        for claim in claims():
            lang_items += claim_items(lang, claim, PER_CLAIM[lang], seen)
        for it in other_items(lang, seen):
            if it["text"] not in seen:
                seen.add(it["text"])
                lang_items.append(it)
        for i, it in enumerate(lang_items):
            it["id"] = f"{lang}-{i:04d}"
        items += lang_items
    return items


def report(items: list[dict]) -> str:
    lines = []
    by_lang = Counter(it["language"] for it in items)
    lines.append(f"items: {len(items)}  "
                 + "  ".join(f"{lang}={by_lang[lang]}" for lang in LANGS))
    lines.append("")
    lines.append("kind          " + "".join(f"{lang:>6}" for lang in LANGS) + "   all")
    for kind in ("claim", "benign", "amount", "unreadable"):
        c = Counter(it["language"] for it in items if it["label"]["kind"] == kind)
        lines.append(f"{kind:<14}" + "".join(f"{c[lang]:>6}" for lang in LANGS)
                     + f"{sum(c.values()):>6}")
    c = Counter(it["language"] for it in items if it["label"]["hedged"])
    lines.append(f"{'hedged':<14}" + "".join(f"{c[lang]:>6}" for lang in LANGS)
                 + f"{sum(c.values()):>6}")
    lines.append("")
    lines.append("claim         " + "".join(f"{lang:>6}" for lang in LANGS) + "   all")
    for claim in claims():
        c = Counter(it["language"] for it in items if it["label"]["claim"] == claim)
        lines.append(f"{claim:<16}"[:16] + "".join(f"{c[lang]:>6}" for lang in LANGS)[2:]
                     + f"{sum(c.values()):>6}")
    lines.append("")
    lines.append("modality/pol  " + "".join(f"{lang:>6}" for lang in LANGS) + "   all")
    for tag in ALL_TAGS:
        c = Counter(it["language"] for it in items if it["label"]["kind"] == "claim"
                    and it["label"]["modality"] + it["label"]["polarity"] == tag)
        lines.append(f"{tag:<14}" + "".join(f"{c[lang]:>6}" for lang in LANGS)
                     + f"{sum(c.values()):>6}")
    ents = Counter(e["kind"] for it in items for e in it["label"]["entities"])
    lines.append("")
    lines.append("entities: " + "  ".join(f"{k}={v}" for k, v in sorted(ents.items())))
    return "\n".join(lines)


ENTITY_KINDS = {"money", "order", "date", "card", "duration", "issue", "ticket", "percent"}


def check(items: list[dict]) -> list[str]:
    """Problems in the corpus's shape (not in its labels): open slots, unknown kinds, duplicates."""
    problems, seen = [], set()
    kinds = {"claim", "benign", "amount", "unreadable"}
    for it in items:
        label, t = it["label"], it["text"]
        if t in seen:
            problems.append(f"duplicate: {t}")
        seen.add(t)
        if re.search(r"[{}~|]|  ", t):
            problems.append(f"{it['id']}: unfilled or untidy: {t}")
        if (label["kind"] not in kinds
                or (label["kind"] == "claim") != (label["claim"] in claims())):
            problems.append(f"{it['id']}: kind/claim {label['kind']}/{label['claim']}")
        if (label["modality"] not in ("done", "will", "can", "if", "asked")
                or label["polarity"] not in "+-"):
            problems.append(
                f"{it['id']}: modality/polarity {label['modality']}{label['polarity']}")
        for e in label["entities"]:
            if e["kind"] not in ENTITY_KINDS:
                problems.append(f"{it['id']}: entity {e}")
    return problems


if __name__ == "__main__":
    items = corpus()
    print(report(items))
    for problem in check(items):
        print("PROBLEM", problem)
