"""One CSV writer and one column vocabulary: the agent's GET /v1/runs/{id}?format=csv, the page's download (the
WASM module's resultsCsv, with the agent's printer compiled in, run here under Node) and to_dataframe (the
Python extension's copy of the printer) give the same header and the same rows for the same run. The header is
checked against the columns agent/README.md documents, written out below; the cells against the results
document itself."""

import csv
import io
import json
import math
import subprocess
import urllib.request
from pathlib import Path

import pytest

from layoutscope import Agent, to_dataframe
from layoutscope.agent import results_csv

ROOT = Path(__file__).resolve().parents[2]

# The columns, in order, as the agent's CSV answer names them (units in the names; agent/README.md, "CSV").
COLUMNS = (
    "run_id,finished_at,schema_version,benchmark,backend,device_name,cache,layout,touch_fields,n,variant,dim,"
    "samples,time_median_s,time_q1_s,time_q3_s,time_min_s,useful_bytes_B,useful_bandwidth_B_per_s,"
    "speedup_soa_over_aos,fraction_of_copy,predicted_load_sectors_per_request,predicted_store_sectors_per_request,"
    "predicted_shared_load_wavefronts,verified,mismatches,case"
).split(",")

WASM_CSV = """
import { readFileSync } from 'node:fs';
const dir = process.argv[1];
const { default: create } = await import(dir + '/layoutscope.js');
const m = await create({ wasmBinary: readFileSync(new URL(dir + '/layoutscope.wasm')) });
const r = m.resultsCsv(readFileSync(0, 'utf8'));
if (!r.ok) { console.error(JSON.stringify(r.error)); process.exit(1); }
process.stdout.write(r.csv);
"""


@pytest.fixture(scope="module")
def agent(agent_url):
    return Agent(agent_url)


@pytest.fixture(scope="module", params=["transpose", "aos_soa"])
def run(request, agent):
    """(the run record's JSON text as the agent sends it, its results document, the agent's CSV of it)"""
    params = (
        {"dim": [64, 96], "variants": ["naive", "pad"]}
        if request.param == "transpose"
        else {"n": [4096], "touch_fields": [1, 2], "layouts": ["aos", "soa"]}
    )
    results = agent.run(request.param, repetitions=2, warmup=0, **params)
    run_id = results["meta"]["run_id"]
    req = urllib.request.Request(f"{agent.base}/v1/runs/{run_id}", headers={"Authorization": f"Bearer {agent.token}"})
    with urllib.request.urlopen(req) as r:
        record_text = r.read().decode()
    return record_text, results, agent.csv(run_id)


def wasm_csv(text: str) -> str:
    wasm = ROOT / "build-wasm" / "wasm"
    assert (wasm / "layoutscope.wasm").exists(), f"{wasm} has no module: build it (scripts/build.sh wasm)"
    p = subprocess.run(["node", "--input-type=module", "-e", WASM_CSV, wasm.as_uri()], input=text,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_the_agents_csv_has_the_documented_columns_and_one_row_per_state(run):
    _, results, agent_csv = run
    table = list(csv.reader(io.StringIO(agent_csv)))
    assert table[0] == COLUMNS
    states = [(b["name"], s) for b in results["benchmarks"] for s in b["states"]]
    assert len(table) - 1 == len(states)
    for row, (name, state) in zip(table[1:], states):
        cell = dict(zip(COLUMNS, row))
        assert cell["benchmark"] == name and cell["run_id"] == results["meta"]["run_id"]
        assert cell["verified"] == ("true" if state["verification"]["passed"] else "false")
        key = "layout" if name == "aos_soa" else "variant"
        assert cell[key] == str(state["axis_values"][key])


def test_the_page_download_is_the_agents_csv_byte_for_byte(run):
    record_text, _, agent_csv = run
    assert wasm_csv(record_text) == agent_csv  # a run record, as GET /v1/runs/{id} answers
    result_text = json.dumps(json.loads(record_text)["result"])
    assert wasm_csv(result_text) == agent_csv  # the results document alone


def test_to_dataframe_has_the_agents_header_and_rows(run):
    pandas = pytest.importorskip("pandas", reason="pandas is not installed (Debian: python3-pandas)")
    _, results, agent_csv = run
    assert results_csv(results) == agent_csv
    df = to_dataframe(results)
    assert isinstance(df, pandas.DataFrame)
    table = list(csv.reader(io.StringIO(agent_csv)))
    assert list(df.columns) == table[0]
    assert len(df) == len(table) - 1
    for i, row in enumerate(table[1:]):
        for name, text in zip(table[0], row):
            value = df.iloc[i][name]
            if text == "":
                assert value is None or (isinstance(value, float) and math.isnan(value)), (name, value)
            elif text in ("true", "false"):
                assert bool(value) == (text == "true"), (name, value)
            else:
                try:
                    assert float(value) == float(text), (name, value, text)
                except ValueError:
                    assert str(value) == text, (name, value, text)


def test_a_document_the_printer_cannot_read_names_the_field():
    with pytest.raises(ValueError, match=r"results\.devices: missing"):
        results_csv({"benchmarks": []})
    node = subprocess.run(["node", "--input-type=module", "-e", WASM_CSV, (ROOT / "build-wasm" / "wasm").as_uri()],
                          input='{"devices": [{"name": "x"}], "meta": {"request": {"params": {}}}, "benchmarks": '
                                '[{"name": "transpose", "backend": "cpu", "states": [{"axis_values": {}}]}]}',
                          capture_output=True, text=True, timeout=60)
    assert node.returncode == 1 and "results.benchmarks[0].states[0].summaries: missing" in node.stderr
