"""scripts/word_sample.py: measures a stratified sample of the word method's jobs into a journal that
``--plan`` fits, and runs again (``--remeasure``) the jobs an earlier kernel measured."""
import json

import pytest

from exact.one_handed.word_run import WORD_KERNEL_VERSION, deck_jobs, plan_summary
from tests.scripts import load_script


def _records(folder):
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines()[1:] if line]
    return out


def test_sample_then_remeasure_in_two_parts(tmp_path, capsys):
    script = load_script("word_sample")
    folder = tmp_path / "jobs"
    assert script.main(["--deck", "3x3", "--mode", "all", "--per-size", "2", "--dir", str(folder)]) == 0
    first = _records(folder)
    assert first and all(rec["kernel"] == WORD_KERNEL_VERSION for rec in first)
    # as an earlier kernel would have left them: no kernel field
    for path in folder.glob("*.jsonl"):
        head, *lines = path.read_text().splitlines()
        old = [json.dumps({k: v for k, v in json.loads(line).items() if k != "kernel"}) for line in lines if line]
        path.write_text("\n".join([head] + old) + "\n")
    assert plan_summary(3, 3, checkpoint_dir=str(folder))["calibrated_on_older_kernel"]
    for part in ("0/2", "1/2"):
        assert script.main(["--deck", "3x3", "--mode", "all", "--per-size", "1", "--remeasure",
                            "--part", part, "--dir", str(folder)]) == 0
    again = [rec for rec in _records(folder) if rec.get("kernel") == WORD_KERNEL_VERSION]
    jobs = deck_jobs(3, 3)
    sizes = [jobs.size(rec["job"]) for rec in again]
    assert again and all("earlier_cpu_seconds" in rec for rec in again)
    assert len(set(sizes)) == len(sizes) == len({jobs.size(rec["job"]) for rec in first})  # one a size
    assert len(list(folder.glob("*.jsonl"))) == 2  # each part its own journal
    plan = plan_summary(3, 3, checkpoint_dir=str(folder))
    assert not plan["calibrated_on_older_kernel"] and plan["calibrated_on_jobs"] == len(again)


@pytest.mark.parametrize("args,message", [(["--part", "2/2"], "0 <= I < N"), (["--part", "x"], "I/N"),
                                          (["--deck", "4x"], "SxR")])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, capsys, args, message):
    script = load_script("word_sample")
    with pytest.raises(SystemExit) as stop:
        script.main([*args, "--dir", str(tmp_path / "jobs")])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "jobs").exists()
