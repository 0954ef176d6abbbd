"""SkyRL: the env is made by skyrl_gym as SkyRL's generator makes it (``make(env_class,
env_config=..., extras=row["env_extras"])``), then init, step until done, close. skyrl_gym
is imported by the tests, not at collection."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .scripted import SEED, TASK, hermes

if TYPE_CHECKING:
    from workgym.adapters.skyrl import WorkGymTextEnv


def make(**extras: object) -> WorkGymTextEnv:
    import skyrl_gym

    from workgym.adapters.skyrl import WorkGymTextEnv

    env = skyrl_gym.make("workgym", env_config={"max_turns": 3},
                         extras={"task": TASK, "seed": SEED, "faults": "none", **extras})
    assert isinstance(env, WorkGymTextEnv)
    return env


def test_init_opens_the_episode_and_a_reply_without_a_call_ends_it() -> None:
    env = make()
    messages, info = env.init([{"role": "user", "content": "Be brief."}])
    assert [m["role"] for m in messages] == ["system", "user", "user"]
    assert "<tools>" in messages[0]["content"] and "tracker_get_myself" in messages[0]["content"]
    assert messages[1]["content"].startswith("Bug ") and info["episode_id"].startswith("ep_")
    out = env.step("<tool_call>{not json}</tool_call>")  # said back, not raised
    assert out["done"] is False and "Could not read" in out["observations"][0]["content"]
    out = env.step(hermes("tracker_get_myself", {}) + hermes("no_such_tool", {}))
    assert [o["role"] for o in out["observations"]] == ["tool", "tool"]
    assert out["observations"][1]["content"].startswith("tool 'no_such_tool'") or \
        "no_such_tool" in out["observations"][1]["content"]
    out = env.step("I am done.")
    assert out["done"] is True and out["reward"] == 0.0
    assert out["metadata"]["report"]["reward"] == 0.0
    env.close()


def test_max_turns_ends_the_episode_with_its_reward() -> None:
    env = make(max_turns=2)
    env.init([])
    assert env.step(hermes("tracker_get_myself", {}))["done"] is False
    out = env.step(hermes("tracker_get_myself", {}))
    assert out["done"] is True and "report" in out["metadata"]
    env.close()
