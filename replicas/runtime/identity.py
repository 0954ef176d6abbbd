"""One company per seed: the people, companies and order numbers every app's world is about.

From the seed alone, three deterministic streams (material: ``identity.yaml``):

* people: name, email (unique), locale, country, currency, phone and, for some, the
  company they work at (their email is then at its domain);
* companies: name and email domain (a per-seed shuffle of the list, then regional
  branches);
* order numbers: ``A-10003``, ``A-10007``, ... (increasing, unique);
* the world's orders (:meth:`Identity.world_orders`): for each of the first
  :data:`WORLD_ORDERS` numbers, who placed it, when and what it started with, so the
  checkout's order and the helpdesk's ticket about it agree (the shop's catalogue is
  ``identity.yaml``'s too).

Every app's world generator takes the first N of each it needs, so one app's customers
and another app's users are the same people for the same seed. An app's mess
(near-duplicates, stale contacts) is the app's, made on top of these people. Row factories
creating *new* people, companies or orders take them from past the world's share
(:data:`WORLD_PEOPLE`, :data:`WORLD_COMPANIES`, :data:`WORLD_ORDERS`), so they never
collide with any app's world. Item ``i`` of a stream depends only on the seed and ``i``
(each stream has its own ``Random``, and is drawn lazily, in order).
"""

from __future__ import annotations

import hashlib
import random
import threading
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache, cached_property, lru_cache
from itertools import count
from pathlib import Path
from typing import Any, Generic, TypeVar

from .world import load_yaml

# App worlds draw from the first this many of each stream; factories draw from the rest.
WORLD_PEOPLE = 1000
WORLD_COMPANIES = 20  # people work at these only
WORLD_ORDERS = 1000
# Factories' new people start at most this far past the worlds' share (drawn per task setup
# and op), so that two tasks on one seed meet different people.
NEW_PEOPLE_SPREAD = 6000

T = TypeVar("T")


@cache
def data() -> dict[str, Any]:
    """identity.yaml, parsed once per process."""
    found: dict[str, Any] = load_yaml(Path(__file__).with_name("identity.yaml"))
    return found


def ascii_fold(text: str) -> str:
    """Lower-case ASCII spelling of a name, as emails have it ('Müller' -> 'muller')."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def phone(rng: random.Random, locale: str) -> str:
    """A phone number in the locale's format (fictional ranges where a country has them)."""
    prefix = data()["locales"][locale]["phone"]
    if locale == "en-US":
        area = rng.choice(["415", "212", "312", "646", "206"])
        return f"{prefix}{area} 555 {rng.randint(100, 199):04d}"
    if locale == "en-GB":
        return f"{prefix}20 7946 {rng.randint(0, 999):04d}"
    if locale == "ja-JP":
        return f"{prefix}3 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"
    return f"{prefix}{rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}"


def unique_email(taken: set[str], local: str, domain: str) -> str:
    """``local@domain``, numbered (``local2@domain``, ...) past those in ``taken``; the
    result is added to ``taken``."""
    email, n = f"{local}@{domain}", 1
    while email in taken:
        n += 1
        email = f"{local}{n}@{domain}"
    taken.add(email)
    return email


@dataclass(frozen=True)
class Company:
    name: str
    domain: str


@dataclass(frozen=True)
class Placed:
    """One of the world's orders: the facts every app agrees on."""

    number: str
    buyer: int  # the index of the person who placed it
    days_ago: float  # when, before the world's now
    sku: str  # its first product (the catalogue's SKU)
    paid: bool  # False: the checkout was abandoned or canceled (no order)
    twice: bool = False  # charged twice (the checkout's mess; its customer writes in)


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    email: str
    locale: str  # e.g. 'de-DE'
    country: str  # ISO 3166 alpha-2, e.g. 'DE'
    currency: str  # what they pay in, e.g. 'EUR'
    phone: str
    company: int | None  # the index of the company they work at (< WORLD_COMPANIES)

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


class _Stream(Generic[T]):
    """Items drawn in order and kept: item ``i`` is the same whichever is asked for first."""

    def __init__(self, draw: Callable[[int], T]) -> None:
        self._draw = draw
        self._items: list[T] = []
        self._lock = threading.Lock()  # two threads extending at once would mix their draws

    def __getitem__(self, index: int) -> T:
        if index >= len(self._items):
            with self._lock:
                while len(self._items) <= index:
                    self._items.append(self._draw(len(self._items)))
        return self._items[index]

    def first(self, n: int) -> list[T]:
        if n:
            self[n - 1]
        return self._items[:n]

    def since(self, start: int) -> Iterator[T]:
        return (self[i] for i in count(start))


class Identity:
    """The streams of one seed (see the module's docstring)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        material = data()
        companies = material["companies"]
        self._order = random.Random(f"identity:{seed}:companies").sample(
            range(len(companies)), len(companies))
        self._emails: set[str] = set()
        people, orders = (random.Random(f"identity:{seed}:{name}") for name in ("people", "orders"))
        self._people = _Stream(lambda _: self._draw_person(people))
        self._orders = _Stream(lambda i: f"A-{10003 + 3 * i + orders.randint(0, 2)}")

    # -- companies ------------------------------------------------------
    def company(self, index: int) -> Company:
        listed: list[list[str]] = data()["companies"]
        regions: list[str] = data()["regions"]
        branch, at = divmod(index, len(listed))
        name, domain = listed[self._order[at]]
        if branch == 0:
            return Company(name, domain)
        cycle, region = divmod(branch - 1, len(regions))
        label = regions[region] + (f" {cycle + 1}" if cycle else "")
        slug = label.lower().replace(" ", "-")
        return Company(f"{name} {label}", f"{domain.removesuffix('.example')}-{slug}.example")

    def companies(self, n: int) -> list[Company]:
        """The first ``n`` companies (a world's: n <= WORLD_COMPANIES)."""
        return [self.company(i) for i in range(n)]

    def new_companies(self) -> Iterator[Company]:
        """Companies no world has, in order (for factories)."""
        return (self.company(i) for i in count(WORLD_COMPANIES))

    # -- people -----------------------------------------------------------
    def person(self, index: int) -> Person:
        return self._people[index]

    def people(self, n: int) -> list[Person]:
        """The first ``n`` people (a world's: n <= WORLD_PEOPLE)."""
        return self._people.first(n)

    def new_people(self) -> Iterator[Person]:
        """People no world has, in order (for factories)."""
        return self._people.since(WORLD_PEOPLE)

    def people_for(self, key: str, currency: str | None = None) -> Iterator[Person]:
        """New people for one of a factory's draws (``key``: the task's setup and op), all of
        one locale: the ``(seed + hash(key)) mod n``-th of the n locales (of those paying in
        ``currency`` if given), so that one op's people over any n consecutive seeds speak
        every language; from a start past the worlds' share drawn from the seed and ``key``
        (up to :data:`NEW_PEOPLE_SPREAD`), so that two tasks on one seed meet different
        people."""
        locales = [name for name, spec in data()["locales"].items()
                   if currency is None or spec["currency"] == currency.upper()]
        if not locales:
            raise ValueError(f"no locale pays in {currency}")
        spread = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
        locale = locales[(self.seed + spread) % len(locales)]
        start = WORLD_PEOPLE + random.Random(f"identity:{self.seed}:{key}").randrange(
            NEW_PEOPLE_SPREAD)
        return (person for person in self._people.since(start) if person.locale == locale)

    def person_with(self, email: str, *,
                    within: int = WORLD_PEOPLE + NEW_PEOPLE_SPREAD + 2000) -> Person:
        """The person whose email is ``email`` (case-insensitive) among the first ``within``:
        another app's customer, in this app (ValueError when there is none)."""
        wanted = email.lower()
        for index in range(within):
            if self._people[index].email.lower() == wanted:
                return self._people[index]
        raise ValueError(f"no person of the seed's identity has the email {email}")

    def _draw_person(self, r: random.Random) -> Person:
        material = data()
        locales: dict[str, dict[str, Any]] = material["locales"]
        locale = r.choices(list(locales), [spec["weight"] for spec in locales.values()])[0]
        first = r.choice(material["first_names"][locale])
        last = r.choice(material["last_names"][locale])
        company = r.randrange(WORLD_COMPANIES) if r.random() < 0.3 else None
        domain = (self.company(company).domain if company is not None
                  else r.choice(material["email_domains"]))
        f, la = ascii_fold(first), ascii_fold(last)
        local = r.choice([f"{f}.{la}", f"{f}{la[0]}", f"{f[0]}{la}{r.randint(1, 99)}"])
        spec = locales[locale]
        return Person(first=first, last=last, email=unique_email(self._emails, local, domain),
                      locale=locale, country=spec["country"], currency=spec["currency"],
                      phone=phone(r, locale), company=company)

    # -- order numbers ----------------------------------------------------
    def order_number(self, index: int) -> str:
        return self._orders[index]

    def order_numbers(self, n: int) -> list[str]:
        """The first ``n`` order numbers, increasing (a world's: n <= WORLD_ORDERS)."""
        return self._orders.first(n)

    def new_order_numbers(self) -> Iterator[str]:
        """Order numbers no world has, in order (for factories)."""
        return self._orders.since(WORLD_ORDERS)

    @cached_property
    def world_orders(self) -> list[Placed]:
        """The world's orders, in number order (placed oldest first): their buyers among the
        first people, times since the shop moved, first products (one-off ones; beans and
        filters more often), whether they were paid."""
        r = random.Random(f"identity:{self.seed}:ledger")
        spec, catalogue = data()["orders"], data()["catalogue"]
        skus = [sku for sku, item in catalogue.items() if "interval" not in item]
        weights = [3 if sku.startswith(("BN", "FL", "PO")) else 1 for sku in skus]
        days = sorted((r.uniform(0.05, spec["span_days"]) for _ in range(WORLD_ORDERS)),
                      reverse=True)
        placed = [Placed(number=number, buyer=r.randrange(spec["buyers"]), days_ago=ago,
                         sku=r.choices(skus, weights)[0], paid=r.random() >= spec["unpaid"])
                  for number, ago in zip(self.order_numbers(WORLD_ORDERS), days, strict=True)]
        low, high = spec["twice_days"]
        fits = [i for i, p in enumerate(placed) if p.paid and low <= p.days_ago <= high]
        for i in r.sample(fits, spec["twice"]):
            placed[i] = replace(placed[i], twice=True)
        return placed


@lru_cache(maxsize=32)
def identity(seed: int) -> Identity:
    """The identity of ``seed`` (kept for the seeds in use: streams are drawn once)."""
    return Identity(seed)
