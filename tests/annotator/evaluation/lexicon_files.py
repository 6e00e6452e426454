"""A small lexicon and sentence file for the lexicon-evaluation tests (written for them)."""

LEXICON = """phrase\tparaphrase\tscore\tlexicon
went up\trose\t0.9\tP_Seed
went up\tclimbed\t0.6\tP_Seed
went up\trose\t0.7\tP_Del
went up\tincreased\t0.4\tP_Del
fell sharply\tplunged\t0.8\tP_Seed
"""

# "went up" has 7 paraphrases in the union (rose in both), "goes down" 4, "fell sharply" 1.
FUJITA_LEXICON = """phrase\tparaphrase\tscore\tlexicon
went up\trose\t0.9\tP_Seed
went up\tclimbed\t0.6\tP_Seed
went up\tgrew\t0.5\tP_Seed
went up\trose\t0.7\tP_Del
went up\tincreased\t0.4\tP_Del
went up\tsoared\t0.3\tP_Del
went up\tjumped\t0.2\tP_Del
went up\tsurged\t0.1\tP_Del
goes down\tfalls\t0.8\tP_Seed
goes down\tdrops\t0.7\tP_Seed
goes down\tdeclines\t0.6\tP_Del
goes down\tsinks\t0.5\tP_Del
fell sharply\tplunged\t0.8\tP_Seed
"""

SENTENCES = """# sentences for the lexicon evaluation tests
Prices of fresh vegetables went up again in the northern markets during the last week of May .
too short went up here .
The number of visitors to the old castle went up after the new bridge was finally opened .
Sales went up by nearly ten percent once the company lowered its prices for the winter season .
Nobody expected that the water level of the river went up so quickly after the storm .
The temperature in the greenhouse went up steadily while the gardeners were away for the whole weekend .
When the new manager arrived the morale of the whole team went up within only a few weeks .
This sentence mentions a rise but never uses the phrase in question at all in any way .
"""
