"""What every helpdesk rule module shares: who the API acts as."""

from __future__ import annotations

# The agent calling the API: every comment, refund and approval request the API
# writes is authored by agent 1, "AI Agent" (Support group).
ACTING_AGENT_ID = 1
