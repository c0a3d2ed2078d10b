"""The expat reader (vassal_parser/xml_light.py) gives lxml's tree, or steps aside for lxml (issue 27).

Why these tests: the expat path is only a fast path for a small check; a module it reads must be the
module lxml would have given, on every corpus build file and metadata entry, and anything it cannot
read as lxml would (a DOCTYPE, a prefixed name, bad XML) must go to lxml, whose answer stands.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR
from vassal_parser import container, module, xml_light
from vassal_parser.container import parse_xml, read_metadata_xml
from vassal_parser.errors import InputError
from vassal_parser.module import image_size, load_module

DEMO_MODULE = Path(__file__).resolve().parents[2] / "module_patches" / "demo" / "adjutant-demo.vmod"
METADATA = ("moduledata", "savedata", "extensiondata")


def _corpus(pattern: str) -> list[Path]:
    return sorted(CORPUS_DIR.rglob(pattern)) if CORPUS_DIR.exists() else []


def _build_files() -> list[Path]:
    return [path for path in _corpus("buildFile*") if path.suffix in ("", ".xml")]


def _zip_xml_entries() -> list[tuple[Path, str]]:
    """(archive, entry) for every metadata entry and every build file inside the corpus archives."""
    found = []
    for path in sorted(_corpus("*.vmod") + _corpus("*.vmdx") + _corpus("*.vsav") + _corpus("*.vlog")):
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
        except (zipfile.BadZipFile, OSError):
            continue
        found += [(path, name) for name in names if name in (*METADATA, "buildFile", "buildFile.xml")]
    return found


def _same_tree(light: xml_light.LightElement, lxml_root) -> None:
    """Tag, attributes in order, text, and child elements (lxml's comments and PIs skipped), all levels."""
    pending = [(light, lxml_root)]
    while pending:
        ours, theirs = pending.pop()
        assert ours.tag == theirs.tag
        assert list(ours.attrib.items()) == list(theirs.attrib.items())
        assert ours.text == theirs.text, ours.tag
        elements = [child for child in theirs if isinstance(child.tag, str)]
        assert len(ours) == len(elements), ours.tag
        pending.extend(zip(ours, elements, strict=True))


def _same_objects(ours: object, theirs: object, where: str) -> None:
    """Field by field, through lists, dicts and the objects they hold (a grid refers back to its
    parent, so `==` of two modules would not end); each pair of objects is compared once."""
    pending, seen = [(ours, theirs, where)], set()
    while pending:
        a, b, at = pending.pop()
        assert type(a) is type(b), at
        if isinstance(a, (list, tuple)):
            assert len(a) == len(b), at
            pending.extend((x, y, f"{at}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True)))
        elif isinstance(a, dict):
            assert list(a) == list(b), at
            pending.extend((a[k], b[k], f"{at}[{k!r}]") for k in a)
        elif hasattr(a, "__dict__") or hasattr(type(a), "__slots__"):
            if (id(a), id(b)) in seen:
                continue
            seen.add((id(a), id(b)))
            names = list(vars(a)) if hasattr(a, "__dict__") else [
                n for n in getattr(type(a), "__slots__", ()) if hasattr(a, n)]
            pending.extend((getattr(a, n), getattr(b, n), f"{at}.{n}") for n in names)
        else:
            assert a == b, at


def test_every_corpus_build_file_reads_as_lxml_reads_it() -> None:
    files = _build_files()
    if not files:
        pytest.skip(f"no corpus build files under {CORPUS_DIR} (set ADJUTANT_SHARED to the shared/ folder)")
    for path in files:
        data = path.read_bytes()
        light = xml_light.parse(data)
        assert light is not None, path  # VASSAL's own files: nothing for lxml to decide
        _same_tree(light, parse_xml(data, path, huge=True))


def test_every_corpus_metadata_entry_and_zipped_build_file_reads_as_lxml_reads_it() -> None:
    entries = _zip_xml_entries()
    if not entries:
        pytest.skip(f"no corpus archives under {CORPUS_DIR} (set ADJUTANT_SHARED to the shared/ folder)")
    for path, name in entries:
        with zipfile.ZipFile(path) as archive:
            data = archive.read(name)
        light = xml_light.parse(data)
        assert light is not None, (path, name)
        _same_tree(light, parse_xml(data, path, huge=True))


def test_modules_built_from_either_tree_are_equal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every corpus module (and the demo's) loaded through expat and through lxml: equal `Module`s."""
    paths = [DEMO_MODULE, *_corpus("*.vmod"), *_build_files()]
    compared = 0
    for path in paths:
        monkeypatch.setattr(module, "LIGHT_BUILD_BYTES", 1 << 40)
        try:
            light = load_module(path)
        except InputError:
            continue  # a corpus file that is not a module (a fragment); lxml's refusal is tested elsewhere
        monkeypatch.setattr(module, "LIGHT_BUILD_BYTES", -1)
        _same_objects(light, load_module(path), str(path))
        compared += 1
    assert compared >= 1


def test_the_small_check_reads_no_lxml() -> None:
    """The point of it all: a small module, its metadata and its SVG boards without lxml's import."""
    import subprocess
    import sys

    code = ("import sys; from vassal_parser.module import load_module; "
            f"m = load_module({str(DEMO_MODULE)!r}); "
            "print(sorted(b.size for mp in m.maps for b in mp.boards if b.size)); "
            "print('lxml.etree' in sys.modules)")
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).resolve().parents[2]).stdout.splitlines()
    assert lines[-1] == "False"
    assert lines[0] != "[]"  # the boards' SVG sizes were read, by expat


@pytest.mark.parametrize("document", [
    b"<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>",  # a DTD: never read here (lxml refuses it)
    b"<a xmlns:v='urn:x'><v:b/></a>",  # a prefixed name: a namespace to lxml
    b"<a v:k='1' xmlns:v='urn:x'/>",
    b"<a><b></a>",  # not well-formed
    b"",
    b"<?xml version='1.0' encoding='x-no-such-encoding'?><a/>",
])
def test_what_expat_should_not_decide_goes_to_lxml(document: bytes) -> None:
    assert xml_light.parse(document) is None


def test_text_stops_at_the_first_child_node_as_lxml_text_does() -> None:
    for document in (b"<a>one<!-- c -->two<b/>three</a>", b"<a>one<?pi x?>two</a>", b"<a>one<b/>two</a>",
                     b"<a><![CDATA[x<y]]>&amp;&#65;</a>", b"<a>\r\n x \t</a>", b"<a></a>", b"<a/>"):
        _same_tree(xml_light.parse(document), parse_xml(document, "t.xml"))


def test_an_element_without_children_is_still_found() -> None:
    """`LightElement` has a length, so an empty root is falsy: callers must test `is None`."""
    root = xml_light.parse(b"<data><name>x</name></data>")
    assert root is not None and read_metadata_xml(b"<data/>", "m") == {}
    assert container.read_metadata_xml(b"<data><name> x </name><name lang='de'>y</name></data>", "m") == {
        "name": "x"}


def test_deep_nesting_is_read_without_recursion() -> None:
    depth = 100_000
    root = xml_light.parse(b"<a>" * depth + b"</a>" * depth)
    assert root is not None
    level = 0
    while len(root):
        root, level = root.children[0], level + 1
    assert level == depth - 1


def test_bad_metadata_is_still_lxml_s_one_line() -> None:
    with pytest.raises(InputError, match="malformed XML"):
        read_metadata_xml(b"<data><name>x</data>", "save.vsav!savedata")
    with pytest.raises(InputError, match="DTD"):
        read_metadata_xml(b"<!DOCTYPE data><data/>", "save.vsav!savedata")


@pytest.mark.parametrize("svg, size", [
    (b"<svg xmlns='http://www.w3.org/2000/svg' width='120' height='80px'/>", (120, 80)),
    (b"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 300.5 200'><g/></svg>", (300, 200)),
    (b"<svg xmlns='http://www.w3.org/2000/svg' width='120' height='80'><g></svg>", None),  # broken
    # a DTD with entities: lxml's reading decides
    (b"<!DOCTYPE svg [<!ENTITY w '64'>]><svg xmlns='http://www.w3.org/2000/svg' width='10' height='20'/>",
     (10, 20)),
])
def test_svg_board_sizes_as_lxml_gives_them(svg: bytes, size: tuple[int, int] | None) -> None:
    assert image_size(svg) == size
    assert xml_light.root_attributes(svg) is None or size is not None
