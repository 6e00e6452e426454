"""Spanish and Catalan tokenization rules (annotator.corpus.tokenize_romance) and the language switch."""

import pytest

from annotator.corpus.languages import tokenizer_for
from annotator.corpus.tokenize import tokenize
from annotator.corpus.tokenize_romance import tokenize_romance


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("¿Dónde está l'Ajuntament?", ["¿", "Dónde", "está", "l'", "Ajuntament", "?"]),
        ("¡Hola!", ["¡", "Hola", "!"]),
        ("Va venir d'un poble.", ["Va", "venir", "d'", "un", "poble", "."]),
        ("Dóna-m'ho, si us plau.", ["Dóna", "-m'", "ho", ",", "si", "us", "plau", "."]),
        ("Fes-ho ara", ["Fes", "-ho", "ara"]),
        ("porta'ls", ["porta", "'ls"]),
        ("n'hi ha", ["n'", "hi", "ha"]),
        (
            "La col·lecció (del museu) és «bona».",
            ["La", "col·lecció", "(", "del", "museu", ")", "és", "«", "bona", "»", "."],
        ),
        ("El Sr. García pagó 1.000,5 euros...", ["El", "Sr.", "García", "pagó", "1.000,5", "euros", "..."]),
        ("dámelo al niño", ["dámelo", "al", "niño"]),
        (
            "¿Quién ganó las elecciones en EE.UU. el año pasado?",
            ["¿", "Quién", "ganó", "las", "elecciones", "en", "EE.UU.", "el", "año", "pasado", "?"],
        ),
        ("Vive en EE.UU.", ["Vive", "en", "EE.UU."]),
        ("Treballa als EE.UU., diu.", ["Treballa", "als", "EE.UU.", ",", "diu", "."]),
        ("La S.A. y RR.HH. (p.ej. hoy)", ["La", "S.A.", "y", "RR.HH.", "(", "p.ej.", "hoy", ")"]),
        ("Llegó a las 3.30.", ["Llegó", "a", "las", "3.30", "."]),
    ],
)
def test_spanish_and_catalan_rules(text, tokens):
    assert tokenize_romance(text) == tokens


def test_the_project_language_chooses_the_tokenizer():
    assert tokenizer_for("en") is tokenize
    assert tokenizer_for("es")("¿Qué?") == ["¿", "Qué", "?"]
    assert tokenizer_for("ca")("l'home") == ["l'", "home"]
    with pytest.raises(ValueError, match="no tokenizer for language 'fr'"):
        tokenizer_for("fr")
