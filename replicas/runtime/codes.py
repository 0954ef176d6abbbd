"""The codes a world sends its people (the 6 digits an email change sends to the new
address). A code derives from the episode's secret, which is the same for every app of the
world of a seed (``EpisodeStore.create``), and from the addresses, which the apps share (the
seed's identity): so one app's scripted customer can say the code another app sent, the
same world gives the same code (determinism), and no agent can compute it."""

from __future__ import annotations

from workgym_core.credentials import mac


def email_change_code(secret: str, email: str, new_email: str) -> str:
    """The code sent to ``new_email`` to move an account from ``email`` to it."""
    digest = mac(secret, "email-change", f"{email.lower()}:{new_email.lower()}")
    return f"{int(digest[:8], 16) % 1_000_000:06d}"
