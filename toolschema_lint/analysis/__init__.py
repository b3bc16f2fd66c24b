"""The text-analysis layer: normalisation, concept tagging over the lexicons, and intents."""
