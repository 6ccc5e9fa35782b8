"""Probe targets and CMSIS packs, as far as they go without hardware: pyOCD's built-in targets, a local
.pdsc parsed offline by cmsis-pack-manager, the errors of a flash with no probe or a wrong target, and
descriptions that must be refused in one line rather than crash the parser (deep, truncated, binary, huge,
mutated)."""

import collections
import json
import random
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.parsers import expat

import pytest

from uxhost import qemu
from uxhost.cli import main
from uxhost.errors import InputError
from uxhost.packs import MAX_DEPTH, MAX_PDSC_BYTES, add_pack, check_target, devices

pytest.importorskip("pyocd")
DATA = qemu.REPO_ROOT / "tests" / "host" / "data"


def test_the_reference_targets_are_built_into_pyocd():
    assert check_target("stm32f767zi") == "stm32f767zi"  # Nucleo-F767ZI, the reference real board
    assert check_target("STM32F429XI") == "stm32f429xi"


def test_a_mistyped_target_gets_the_closest_names():
    with pytest.raises(InputError, match="no target 'stm32f767z'; did you mean stm32f767zi"):
        check_target("stm32f767z")


def test_a_local_pdsc_is_parsed_offline_into_board_flags(tmp_path, capsys):
    found = add_pack(DATA / "Acme.DemoM7_DFP.pdsc", tmp_path)
    assert [d.name for d in found] == ["DEMO767"]
    demo = found[0]
    assert (demo.core, demo.fpu, demo.flash, demo.ram) == ("CortexM7", "DoublePrecision", 2 << 20, 512 << 10)
    assert demo.algorithms == ("Flash/DEMO767_2M.FLM",)
    assert demo.build() == ("double", "-mthumb -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard")
    assert set(devices(tmp_path)) == {"DEMO767"}  # kept in the store's index
    assert main(["packs", "list", "--store", str(tmp_path)]) == 0
    assert "BOARD_CPU := -mthumb -mcpu=cortex-m7" in capsys.readouterr().out


def test_a_file_that_is_not_a_pack_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "Acme.Broken_DFP.pdsc"
    bad.write_text("<package><devices><device Dname='X'>")
    code = main(["packs", "add", str(bad), "--store", str(tmp_path / "store")])
    assert code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_flash_with_no_probe_attached_says_so(capsys):
    elf = qemu.image_path("mps2-an500")
    if not elf.is_file():
        pytest.skip("no firmware image (make firmware)")
    code = main(["flash", str(elf), "--probe", "pyocd", "--target", "stm32f767zi"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no debug probe is connected (pyOCD sees none)" in err


def test_flash_with_a_probe_needs_a_target(capsys):
    elf = qemu.image_path("mps2-an500")
    assert main(["flash", str(elf), "--probe", "pyocd"]) == 2
    assert "--probe pyocd needs --target" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------------
# Files that must be refused, not crash the parser (issue: a .pdsc 50,000 elements deep killed `uxhost packs
# add` with SIGSEGV; a truncated or binary file was "describes no device"). The CLI runs in a subprocess, so
# a crash is seen as one.


def _packs_add(path, store, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "uxhost", "packs", "add", str(path), "--store", str(store)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _refused(proc, *words):
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])  # not -11 (SIGSEGV), not 1 (traceback)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("uxhost packs: error: "), proc.stderr[-2000:]
    for word in words:
        assert word in lines[0]
    return lines[0]


def test_a_pdsc_nested_50000_deep_is_refused_not_a_crash(tmp_path):
    deep = tmp_path / "Acme.Deep_DFP.pdsc"
    deep.write_text('<?xml version="1.0"?>\n<package>' + "<a>" * 50_000 + "</a>" * 50_000 + "</package>\n")
    assert deep.stat().st_size > 350_000
    line = _refused(_packs_add(deep, tmp_path / "store"), "not a readable .pdsc", f"more than {MAX_DEPTH} deep")
    assert "line 2" in line


def test_a_truncated_pdsc_is_not_readable(tmp_path):
    cut = tmp_path / "Acme.DemoM7_DFP.pdsc"
    text = (DATA / "Acme.DemoM7_DFP.pdsc").read_text()
    cut.write_text(text[: text.index("</device>")])
    _refused(_packs_add(cut, tmp_path / "store"), "not a readable .pdsc", "no element found")


def test_binary_junk_is_not_readable(tmp_path):
    junk = tmp_path / "Acme.Junk_DFP.pdsc"
    junk.write_bytes(random.Random(38).randbytes(4096))
    _refused(_packs_add(junk, tmp_path / "store"), "not a readable .pdsc", "not well-formed")


def test_a_huge_pdsc_is_refused_unread(tmp_path):
    huge = tmp_path / "Acme.Huge_DFP.pdsc"
    with huge.open("wb") as f:  # sparse: a valid start, then zeros up to one byte past the bound
        f.write(b'<?xml version="1.0"?>\n<package>')
        f.truncate(MAX_PDSC_BYTES + 1)
    _refused(
        _packs_add(huge, tmp_path / "store"), "not a readable .pdsc", f"{MAX_PDSC_BYTES + 1:,} bytes", "refused unread"
    )


def test_a_pack_is_checked_inside(tmp_path):
    not_zip = tmp_path / "Acme.Junk_DFP.1.0.0.pack"
    not_zip.write_bytes(b"PK\x03\x04" + bytes(100))
    _refused(_packs_add(not_zip, tmp_path / "store"), "not a readable .pack")
    deep = tmp_path / "Acme.Deep_DFP.1.0.0.pack"
    with zipfile.ZipFile(deep, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("Acme.Deep_DFP.pdsc", "<package>" + "<a>" * 50_000 + "</a>" * 50_000 + "</package>")
    _refused(
        _packs_add(deep, tmp_path / "store"),
        "Acme.Deep_DFP.pdsc",
        "not a readable .pdsc",
        f"more than {MAX_DEPTH} deep",
    )
    empty = tmp_path / "Acme.Empty_DFP.1.0.0.pack"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("readme.txt", "no description here")
    _refused(_packs_add(empty, tmp_path / "store"), "not a readable .pack", "holds no .pdsc")


# Mutated descriptions: each is refused in one line with exit 2, or added with devices it really names;
# never a traceback, never a signal. One subprocess runs them all through the CLI's main (a crash ends it).
NASTY_VALUES = [
    "",
    "0x",
    "-1",
    "0xFFFFFFFFFFFFFFFFFFFF",
    "99999999999999999999999",
    "nan",
    "1e999",
    "Cortex-M99",
    "SP_FPU",
    "DP_FPU",
    "NO_FPU",
    "\u00e9\u6f22\U0001f600",
    "&amp;&lt;",
    "0x0",
    " 0x100 ",
    "Cortex-M0+",
    "Cortex-M33",
    "a" * 5000,
]
RUNNER = r"""
import contextlib, io, json, sys, traceback
from uxhost.cli import main
for line in sys.stdin:
    path, store = json.loads(line)
    print(json.dumps({"start": path}), flush=True)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["packs", "add", path, "--store", store])
    except SystemExit as exc:
        code = exc.code
    except BaseException:
        code = "traceback"
        err.write(traceback.format_exc())
    print(json.dumps({"path": path, "code": code, "out": out.getvalue(), "err": err.getvalue()}), flush=True)
"""


def _mutate(seed: int, base: bytes) -> bytes:
    rng = random.Random(seed)
    data = bytearray(base)
    kind = seed % 12
    at = rng.randrange(len(data))
    if kind == 0:  # bit flips
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncated
        del data[at:]
    elif kind == 2:  # a span deleted
        del data[at : at + rng.randint(1, 200)]
    elif kind == 3:  # a span repeated elsewhere
        span = bytes(data[at : at + rng.randint(1, 400)])
        i = rng.randrange(len(data))
        data[i:i] = span * rng.randint(1, 3)
    elif kind == 4:  # junk inserted
        data[at:at] = bytes(rng.choice(b"<>&;\"'=/\x00\xff\xfe ab") for _ in range(rng.randint(1, 30)))
    elif kind in (5, 6):  # an attribute's value replaced, or the attribute dropped
        attrs = list(re.finditer(rb'(\s[\w:]+)="([^"]*)"', bytes(data)))
        m = rng.choice(attrs)
        if kind == 5:
            value = rng.choice(NASTY_VALUES).replace("&", "&amp;" if rng.random() < 0.5 else "&").encode()
            data[m.start(2) : m.end(2)] = value
        else:
            del data[m.start() : m.end()]
    elif kind == 7:  # an element wrapped in more levels than a description has (or a few)
        depth = rng.choice([1, 5, 40, 63, 70, 1_000, 60_000])
        i = bytes(data).index(b"<device ")
        j = bytes(data).index(b"</device>") + len(b"</device>")
        data[i:j] = b"<w>" * depth + data[i:j] + b"</w>" * depth
    elif kind == 8:  # the device (with another name) or the family repeated
        tag = rng.choice([b"device", b"family"])
        i = bytes(data).index(b"<" + tag + b" ")
        j = bytes(data).index(b"</" + tag + b">") + len(tag) + 3
        copy = bytes(data[i:j]).replace(b"DEMO767", b"DEMO768" if rng.random() < 0.5 else b"DEMO767")
        data[j:j] = copy
    elif kind == 9:  # one line (an element, or half of one) removed
        lines = bytes(data).split(b"\n")
        del lines[rng.randrange(1, len(lines))]
        data = bytearray(b"\n".join(lines))
    elif kind == 10:  # entities: an exponential expansion or an external file
        doctype = rng.choice(
            [
                b'<!DOCTYPE package [<!ENTITY a "aaaaaaaaaa">'
                + b"".join(b'<!ENTITY %c "%s">' % (ord("b") + k, (b"&%c;" % (ord("a") + k)) * 10) for k in range(8))
                + b"]>",
                b'<!DOCTYPE package [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
            ]
        )
        i = bytes(data).index(b"<package")
        data[i:i] = doctype + b"\n"
        k = bytes(data).index(b"<description>") + len(b"<description>")
        data[k:k] = rng.choice([b"&i;", b"&x;", b"&a;"])
    else:  # encodings: a BOM, a declared encoding that is not the file's, Latin-1 bytes
        choice = rng.randrange(3)
        if choice == 0:
            data[0:0] = b"\xef\xbb\xbf"
        elif choice == 1:
            data[:] = bytes(data).replace(b'encoding="UTF-8"', rng.choice([b'encoding="UTF-16"', b'encoding="bogus"']))
        else:
            data[:] = bytes(data).replace(b"written for", b"\xe9crit pour")
    return bytes(data)


def _well_formed(data: bytes) -> bool:
    parser = expat.ParserCreate()
    try:
        parser.Parse(data, True)
        return True
    except expat.ExpatError:
        return False


def test_mutated_descriptions_are_refused_in_one_line_or_read_right(tmp_path):
    base = (DATA / "Acme.DemoM7_DFP.pdsc").read_bytes()
    cases = {}
    for seed in range(240):
        folder = tmp_path / f"case{seed:03d}"
        folder.mkdir()
        path = folder / "Acme.DemoM7_DFP.pdsc"
        path.write_bytes(_mutate(seed, base))
        cases[str(path)] = seed
    feed = "".join(json.dumps([p, str(Path(p).parent / "store")]) + "\n" for p in cases)
    proc = subprocess.run([sys.executable, "-c", RUNNER], input=feed, capture_output=True, text=True, timeout=600)
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    started = [r["start"] for r in records if "start" in r]
    assert proc.returncode == 0, f"the CLI died ({proc.returncode}) on {started[-1:]}: {proc.stderr[-2000:]}"
    results = {r["path"]: r for r in records if "path" in r}
    assert len(results) == len(cases) >= 200
    outcomes = collections.Counter()
    for path, r in results.items():
        seed, data = cases[path], Path(path).read_bytes()
        where = f"seed {seed} (kind {seed % 12}): {r['err'][-1500:]}"
        assert r["code"] in (0, 2), where  # never a traceback
        if r["code"] == 2:
            lines = r["err"].strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("uxhost packs: error: "), where
            if not _well_formed(data):
                assert "not a readable .pdsc" in lines[0], where  # never "describes no device"
            outcomes["refused"] += 1
        else:
            assert _well_formed(data), where  # a file that is not XML is never read as a pack
            names = re.findall(r"^(\S+): ", r["out"], re.M)
            assert names and all(f'Dname="{n}"'.encode() in data for n in names), (where, r["out"])
            outcomes["added"] += 1
    assert outcomes["refused"] >= 50 and outcomes["added"] >= 20, outcomes
