"""The papers' mathematics on exact or quadrature quantities (NumPy/SciPy only): mixtures, oracles, spectra,
bounds, the Tsybakov exponent. Imports nothing of crlrepro outside itself."""
