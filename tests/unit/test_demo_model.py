"""``e2ebench demo-model``'s answers to each built-in CLI agent (issue 42, item 3), on the
request shapes the agents send (recorded from claude-code 2.1.332 and codex 0.169.0; the
chat and Gemini shapes as mini-swe-agent, qwen-code and gemini-cli send them). The whole runs,
through the real agents, are tests/sessions/test_cli_agents.py's demo session."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_e2ebench.tools.testing import demo_model
from pytest_e2ebench.tools.testing.cli_scripts import actions_done, reference_files

TASKS = Path(__file__).resolve().parents[2] / "benchmark_tasks"
PROMPT = (
    "Read the requirements document at {where}/out/{agent}/gradebook/run-1/agent/"
    "requirements.md and build the whole project it describes in the current folder "
    "({where}/out/{agent}/gradebook/run-1/repo). Work without asking questions."
)


def first(agent: str, where: Path) -> dict:
    """The agent's first main-loop request: its prompt names only the requirements' path."""
    text = PROMPT.format(where=where, agent=agent)
    if agent == "claude-code":
        content = [{"type": "text", "text": text}]
        return {"messages": [{"role": "user", "content": content}], "tools": [{"name": "Write"}]}
    if agent == "codex":
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        }
        return {"input": [item], "tools": [{"type": "function", "name": "exec_command"}]}
    if agent == "gemini-cli":
        tools = [{"functionDeclarations": [{"name": "write_file"}]}]
        return {"contents": [{"role": "user", "parts": [{"text": text}]}], "tools": tools}
    names = {"mini-swe-agent": ["bash"], "opencode": ["bash", "write", "todowrite", "read"]}
    tools = [
        {"type": "function", "function": {"name": n}} for n in names.get(agent, ["write_file"])
    ]
    return {"messages": [{"role": "user", "content": text}], "tools": tools}


def called(agent: str, body: dict, name: str) -> None:
    """``body`` with the model's call of ``name`` and its result added, as the agent does."""
    if agent == "claude-code":
        body["messages"] += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": name}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
        ]
    elif agent == "codex":
        body["input"] += [
            {"type": "function_call", "call_id": "c", "name": name, "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "ok"},
        ]
    elif agent == "gemini-cli":
        body["contents"] += [
            {"role": "model", "parts": [{"functionCall": {"name": name, "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": name}}]},
        ]
    else:
        call = {"id": "c", "type": "function", "function": {"name": name, "arguments": "{}"}}
        body["messages"] += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c", "content": "ok"},
        ]


@pytest.mark.parametrize(
    "agent", ["claude-code", "codex", "gemini-cli", "qwen-code", "mini-swe-agent", "opencode"]
)
def test_a_cli_agent_told_only_the_path_gets_the_reference_file_by_file(agent, tmp_path):
    """Before, the demo model looked for the requirements' text, which a CLI agent's prompt
    does not hold: it answered "I do not recognise this task." and the run scored 0."""
    titles = demo_model.task_titles(TASKS)
    requirements = tmp_path / "out" / agent / "gradebook" / "run-1" / "agent" / "requirements.md"
    requirements.parent.mkdir(parents=True)
    requirements.write_bytes((TASKS / "gradebook" / "requirements.md").read_bytes())
    files = reference_files(TASKS / "gradebook")
    body = first(agent, tmp_path)
    written = []
    for index in range(len(files)):
        assert actions_done(body, agent) == index
        step = demo_model.answer(body, titles)
        assert step.calls, step
        name, arguments, _ = step.calls[0]
        written.append(arguments)
        called(agent, body, name)
    for (path, _), arguments in zip(files, written, strict=True):
        assert path in arguments  # each file in turn, through the agent's own tool
    last = demo_model.answer(body, titles)
    assert (last.calls[0][0] == "bash") if agent == "mini-swe-agent" else not last.calls


def test_aider_gets_the_whole_reference_once_whatever_its_prompt_already_holds(tmp_path):
    """aider's prompt has assistant turns of its own before the model says anything: its edit
    format's examples (fenced files) and an "Ok." after each file it shows. The demo model
    counted those as its answers and replied "Done." (the run wrote nothing: 0.0); it answers
    with every reference file in the whole format, then "Done." once that answer is in."""
    titles = demo_model.task_titles(TASKS)
    requirements = (TASKS / "gradebook" / "requirements.md").read_text()
    body = {
        "messages": [
            {"role": "system", "content": "Act as an expert developer. Return a file listing."},
            {"role": "user", "content": "Change the greeting in hello.py."},
            {"role": "assistant", "content": "hello.py\n```\nprint('hi')\n```"},
            {"role": "user", "content": f"Here are some READ ONLY files:\n{requirements}"},
            {"role": "assistant", "content": "Ok, I will use these files as references."},
            {"role": "user", "content": PROMPT.format(where=tmp_path, agent="aider")},
        ]
    }
    step = demo_model.answer(body, titles)
    files = reference_files(TASKS / "gradebook")
    assert not step.calls and all(f"{path}\n```\n" in step.content for path, _ in files), step
    body["messages"] += [
        {"role": "assistant", "content": step.content},
        {"role": "user", "content": "I committed the changes."},
    ]
    assert demo_model.answer(body, titles).content == "Done."
