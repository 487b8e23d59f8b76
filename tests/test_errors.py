"""The one-line input error and the one-line input warning (evo/errors.py)."""

import warnings

import pytest

from evo.errors import EvoInputError, EvoInputWarning, input_warnings_as_errors, warn_input


def test_an_input_warning_is_one_line_naming_the_file_the_field_what_is_ignored_and_a_hint():
    with pytest.warns(EvoInputWarning) as record:
        warn_input("unknown attribute 'soundon'", hint="valid: autoreverse", source="a.xml", field="settings")
    warning = record[0].message
    assert str(warning) == "a.xml: settings: unknown attribute 'soundon' (ignored); valid: autoreverse"
    assert warning.problem == "unknown attribute 'soundon'; valid: autoreverse"


def test_under_input_warnings_as_errors_the_first_warning_is_an_input_error_with_its_words():
    with pytest.raises(EvoInputError) as info, input_warnings_as_errors():
        warn_input("unknown element <sound>", source="a.xml", field="model")
        raise AssertionError("not reached")
    assert str(info.value) == "a.xml: model: unknown element <sound>"


def test_other_warnings_pass_through_input_warnings_as_errors():
    with pytest.warns(UserWarning, match="something else"), input_warnings_as_errors():
        warnings.warn("something else", UserWarning, stacklevel=1)
