"""Parsing XML without resolving entities (evo/io/safe_xml.py); read_soda_xml's tests cover it in use."""

import pytest

from evo.errors import EvoInputError
from evo.io.safe_xml import parse_xml_file


def test_a_doctype_is_blanked_out_and_never_read(tmp_path):
    path = tmp_path / "m.xml"
    path.write_bytes(
        b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE model SYSTEM "x.dtd">\n<model a="\xe9"/>'
    )
    root = parse_xml_file(path, "m.xml")
    assert root.tag == "model" and root.get("a") == "\u00e9"


def test_a_document_declaring_an_entity_is_refused_before_any_expansion(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text('<!DOCTYPE m [<!ENTITY e SYSTEM "file:///etc/passwd">]><model>&e;</model>')
    with pytest.raises(EvoInputError, match="^m.xml: entity declarations are not allowed"):
        parse_xml_file(path, "m.xml")
