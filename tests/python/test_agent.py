"""layoutscope.Agent against a real layoutscope-agent (CPU backend, free loopback port, started by the
conftest fixture): a transpose run end to end, its results document, CSV, a refused request."""

import pytest

import layoutscope
from layoutscope import Agent, AgentError
from layoutscope.agent import rows


@pytest.fixture(scope="module")
def agent(agent_url):
    return Agent(agent_url)


@pytest.fixture(scope="module")
def transpose(agent):
    return agent.run("transpose", dim=[64, 96], variants=["naive", "pad"], repetitions=2, warmup=0)


def test_token_from_the_url_and_health(agent, agent_url):
    assert agent_url.split("#token=")[1] == agent.token
    assert agent.health() == {"status": "ok"}
    assert any(b["name"] == "transpose" for b in agent.benchmarks())


def test_the_statuses_wait_stops_at_come_from_the_agents_description(agent):
    # a run is queued, then running, and ends succeeded, failed, cancelled (DELETE) or interrupted (agent restart)
    assert agent.final_statuses() == {"succeeded", "failed", "cancelled", "interrupted"}
    assert agent.openapi()["components"]["schemas"]["RunStatus"]["anyOf"][0] == {"enum": ["queued", "running"]}


def test_wrong_token_is_refused(agent):
    with pytest.raises(AgentError) as e:
        Agent(agent.base, token="not-the-token").runs()
    assert e.value.status == 401


def test_run_returns_the_results_document(transpose):
    assert transpose["schema_version"].startswith("1.")
    (bench,) = transpose["benchmarks"]
    assert bench["name"] == "transpose" and bench["backend"] == "cpu"
    states = {(s["axis_values"]["variant"], s["axis_values"]["dim"]) for s in bench["states"]}
    assert states == {(v, d) for v in ("naive", "pad") for d in (64, 96)}
    assert all(s["verification"]["passed"] for s in bench["states"])


def test_rows_flatten_one_state_each(transpose):
    table = rows(transpose)
    assert len(table) == 4
    assert {r["variant"] for r in table} == {"naive", "pad"} and all(r["verified"] for r in table)
    assert all(any(k.endswith("/time/cpu/median") for k in r) for r in table)


def test_to_dataframe(transpose):
    pandas = pytest.importorskip("pandas", reason="pandas is not installed (Debian: python3-pandas)")
    df = layoutscope.to_dataframe(transpose)
    assert isinstance(df, pandas.DataFrame) and len(df) == 4
    assert sorted(df["dim"].unique().tolist()) == [64, 96]


def test_history_and_csv(agent, transpose):
    finished = [r for r in agent.runs() if r["status"] == "succeeded"]
    assert finished
    csv = agent.csv(finished[-1]["id"])
    assert csv.splitlines()[0].count(",") > 2 and "naive" in csv


def test_a_bad_parameter_names_its_field(agent):
    with pytest.raises(AgentError) as e:
        agent.run("transpose", dim=[0])
    assert e.value.status == 422 and e.value.field.startswith("params.dim")
    with pytest.raises(AgentError) as e:
        agent.run("matmul")
    assert e.value.status == 422


def test_agent_url_must_carry_a_token():
    with pytest.raises(ValueError, match="token"):
        Agent("http://127.0.0.1:1/")
    with pytest.raises(ValueError, match="http"):
        Agent("127.0.0.1:8765")
