"""A Swiss event run from signed games: the event file (``eventfile``), the round files
(``roundfile``), pairings (``pairing``, pure), results found by key (``results``),
standings with tie-breaks (``standings``), the top cut (``cut``) and Glicko-2 ratings
(``ratings``). ``docs/publishing.md`` describes the files and the rules."""
