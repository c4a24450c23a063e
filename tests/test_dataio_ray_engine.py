"""``validate --engine ray``: a real local Ray cluster (2 CPUs); output byte-identical to ``--jobs 1``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import dataset_records
from hermes_toolcall.cli import main

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
pa = pytest.importorskip("pyarrow", reason="the [parquet] extra is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the [parquet] extra is not installed")
zstandard = pytest.importorskip("zstandard", reason="the [zstd] extra is not installed")
pytestmark = pytest.mark.ci_required("the [ray] extra is installed by .ci/run; the tests start their own cluster")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray cluster with 2 CPUs for this module (stopped at the end); yields its address."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("ray")
    mixed = dataset_records(700)
    data = "".join(json.dumps(r) + "\n" for r in mixed).encode() + b"{broken\n\n" + b'{"messages": "\xff"}\n'
    (tmp / "mixed.jsonl").write_bytes(data)
    (tmp / "mixed.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    openai = dataset_records(500, sharegpt=False)
    pq.write_table(pa.Table.from_struct_array(pa.array(openai)), tmp / "openai.parquet", row_group_size=64)
    return {p.name: p for p in tmp.iterdir()}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["validate", *args])
    return status, capsys.readouterr().out


@pytest.mark.parametrize("name", ["mixed.jsonl", "mixed.jsonl.zst", "openai.parquet"])
def test_ray_output_is_byte_identical_to_jobs_1(
    cluster: str, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = str(inputs[name])
    for fmt in ("json",) if name != "mixed.jsonl" else ("json", "text", "html"):  # html: the records travel too
        one = _run(capsys, path, "--format", fmt, "--jobs", "1")
        assert one[0] == 1 and one[1].count("HT") > 100
        assert _run(capsys, path, "--format", fmt, "--engine", "ray") == one
        if fmt == "json":
            assert _run(capsys, path, "--format", fmt, "--jobs", "0") == one


def test_ray_on_a_saved_dataset(cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    datasets = pytest.importorskip("datasets", reason="the [datasets] extra is not installed")
    datasets.disable_progress_bars()
    folder = tmp_path / "saved"
    datasets.Dataset.from_list(dataset_records(300, sharegpt=False)).save_to_disk(str(folder))
    one = _run(capsys, str(folder), "--format", "json")
    assert one[0] == 1
    assert _run(capsys, str(folder), "--format", "json", "--engine", "ray") == one


def test_ray_address_connects_to_a_running_cluster(cluster: str, inputs: dict[str, Path]) -> None:
    path = str(inputs["openai.parquet"])
    exe = [sys.executable, "-m", "hermes_toolcall"]
    env = {**os.environ, "RAY_ADDRESS": ""}
    local = subprocess.run([*exe, "validate", path, "--format", "json"], capture_output=True, text=True, env=env)
    remote = subprocess.run(
        [*exe, "validate", path, "--format", "json", "--engine", "ray", "--ray-address", cluster],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert remote.returncode == local.returncode == 1, remote.stderr[-2000:]
    assert remote.stdout == local.stdout
    assert "Traceback" not in remote.stderr


def test_ray_usage_errors(
    inputs: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(inputs["mixed.jsonl"])
    assert main(["validate", path, "--ray-address", "auto"]) == 2
    assert "--ray-address needs --engine ray" in capsys.readouterr().err
    assert main(["validate", str(inputs["mixed.jsonl"]) + ".missing", "--engine", "ray"]) == 2
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main(["validate", path, "--engine", "ray"]) == 2
    assert "pip install 'hermes-toolcall[ray]'" in capsys.readouterr().err
