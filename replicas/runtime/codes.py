"""The codes a world sends its people (the 6 digits an email change sends to the new
address). A code derives from the episode's secret, which is the same for every app of the
world of a seed (``EpisodeStore.create``), and from the addresses: the same world gives the
same code (determinism) and no agent can compute it. It reaches its person by mail (the
app's ``ReplicaSpec.mail``, delivered by the proxy to the episode's other apps), so a
scripted customer has a code only once one was sent."""

from __future__ import annotations

from workgym_core.credentials import mac


def email_change_code(secret: str, email: str, new_email: str) -> str:
    """The code sent to ``new_email`` to move an account from ``email`` to it."""
    digest = mac(secret, "email-change", f"{email.lower()}:{new_email.lower()}")
    return f"{int(digest[:8], 16) % 1_000_000:06d}"
