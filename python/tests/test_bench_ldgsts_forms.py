"""scripts/bench/ldgsts-forms.sh on SASS text (no GPU, no cuobjdump): it counts the copies'
forms with registers and constants named alike, passes the forms nvgpu's copies take, and
fails on a shared address with a uniform register (the illegal form ptxas 13.0 gave the
fifty-third session's inline-PTX copies) and on SASS without any LDGSTS."""

import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bench" / "ldgsts-forms.sh"

GOOD = """\
        /*0a10*/                   LDGSTS.E.BYPASS.128 [R5+0x800], desc[UR8][R12.64] ;
        /*0a20*/              @!P0 LDGSTS.E.BYPASS.128 [R7], desc[UR6][R10.64], !PT ;
        /*0a30*/                   LDGSTS.E.BYPASS.128 [R9+0x1000], desc[UR8][R14.64] ;
"""
BAD = "        /*0b00*/    LDGSTS.E.BYPASS.128 [R99+UR0+0x800], desc[UR1][R12.64] ;\n"


def forms(sass):
    return subprocess.run(["bash", str(SCRIPT), "-"], input=sass, capture_output=True, text=True)


def test_counts_the_forms_of_good_copies():
    run = forms(GOOD)
    assert run.returncode == 0, run.stderr
    lines = sorted(" ".join(line.split()) for line in run.stdout.splitlines())
    assert lines == ["1 LDGSTS.E.BYPASS.128 [R], desc[UR6][R.64]",
                     "2 LDGSTS.E.BYPASS.128 [R+X], desc[UR8][R.64]"]


def test_fails_on_a_uniform_register_in_the_shared_address():
    run = forms(GOOD + BAD)
    assert run.returncode == 1
    assert "[R+UR0+X]" in run.stdout
    assert "uniform register" in run.stderr


def test_fails_without_copies():
    run = forms("        /*0000*/    MOV R1, c[0x0][0x28] ;\n")
    assert run.returncode == 1
    assert "no LDGSTS" in run.stderr
