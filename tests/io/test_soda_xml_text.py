"""``loads_soda_xml``: a classic file read from its bytes or its decoded text gives what ``load_model`` of
the file gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.errors import EvoInputError
from evo.io.models import creature_to_dict, load_model
from evo.io.soda_xml import loads_soda_xml

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"


@pytest.mark.parametrize("name", ["crawler.xml", "hopper.xml", "strider.xml"])
def test_bytes_and_decoded_text_read_as_the_file_does(name):
    path = CLASSIC / name
    expected = creature_to_dict(load_model(path))
    data = path.read_bytes()
    from_bytes = loads_soda_xml(data, source=name, name=path.stem)
    from_text = loads_soda_xml(data.decode("iso-8859-1"), source=name, name=path.stem)  # as declared
    assert creature_to_dict(from_bytes) == expected
    assert creature_to_dict(from_text) == expected


def test_an_entity_in_text_is_refused_naming_the_source():
    with pytest.raises(EvoInputError, match="^up.xml: .*entit"):
        loads_soda_xml('<!DOCTYPE m [<!ENTITY e "x">]><model>&e;</model>', source="up.xml")
