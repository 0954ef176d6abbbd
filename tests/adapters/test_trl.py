"""TRL's environment_factory interface, as trl 1.16's GRPOTrainer uses it (trl is not
installed: it needs torch): tools discovered on the class of a probe instance made before any
reset (``inspect.getmembers(type(env), inspect.isfunction)``, public names but reset and
get_reward), their schemas by ``transformers.utils.get_json_schema`` (what
``apply_chat_template(tools=...)`` does), ``reset(**row)``, tool calls by keyword,
``get_reward()``. transformers is imported by the test that uses it, not at collection."""

from __future__ import annotations

import inspect
from typing import Any

from workgym.adapters.common import task_tools
from workgym.adapters.trl import WorkGymToolEnv, environment_factory, environment_name

from .scripted import SEED, TASK


def discovered(env: Any) -> dict[str, Any]:
    return {name: getattr(env, name) for name, _ in
            inspect.getmembers(type(env), predicate=inspect.isfunction)
            if name not in ("reset", "get_reward") and not name.startswith("_")}


def test_tools_are_known_before_any_episode_and_schemas_read_back() -> None:
    from transformers.utils.chat_template_utils import get_json_schema

    tasks = [TASK, "helpdesk/refund-standard"]
    factory = environment_factory(tasks)
    assert isinstance(factory, dict) and set(factory) == {environment_name(t) for t in tasks}
    for task in tasks:
        probe = factory[environment_name(task)]()  # no reset: as trl's probe
        tools = discovered(probe)
        expected = {t["function"]["name"] for t in task_tools(task)}
        assert set(tools) == expected
        for tool in tools.values():
            schema = get_json_schema(tool)["function"]
            assert schema["name"] == tool.__name__
    helpdesk: Any = factory["checkout+helpdesk"]()  # its tools: methods made per task
    schema = get_json_schema(helpdesk.helpdesk_list_tickets)["function"]["parameters"]
    assert "page_size" in schema["properties"]  # 'page[size]', named as Python allows
    update = get_json_schema(helpdesk.helpdesk_update_ticket)["function"]
    assert update["parameters"]["required"] == ["ticket_id", "ticket"]
    assert "JSON schema" in helpdesk.helpdesk_update_ticket.__doc__  # nested: in the Args


def test_reset_tools_finish_and_reward() -> None:
    cls = environment_factory(TASK)
    assert isinstance(cls, type) and issubclass(cls, WorkGymToolEnv)
    env: Any = cls()  # its tools: methods made per task
    assert env.get_reward() == 0.0  # nothing started
    text = env.reset(task=TASK, seed=SEED, faults="none", prompt=[{"role": "user"}])
    assert "Bug " in text and "Jira" in text  # the brief, then the instruction
    assert env.tracker_get_myself().startswith("HTTP 200")
    assert env.finish(answer="nothing") == "Task ended."
    assert "has ended" in env.tracker_get_myself()  # a no-op, said
    assert env.get_reward() == 0.0 and env.report is not None
    env.reset(task=TASK, seed=SEED, faults="none")  # the pooled instance, reused
    assert env.report is None and env.get_reward() == 0.0  # scored without finish
