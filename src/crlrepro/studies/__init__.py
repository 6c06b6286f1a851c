"""The studies: one package per experiment (or group of experiments reported together), each a vertical slice.

``crlrepro.studies.<name>`` holds what is specific to one study: its registry entry (experiments and claims), its cost
model, the config keys each of its rules reads (``__init__.py``), its claims builders (``claims.py``), its figure
(``figure.py``) and its config keys' types and bounds (``schema.yaml``); its rules are ``workflow/rules/<name>.smk``
and its scripts ``workflow/scripts/<name>/``. A study imports only the shared layers below it (theory, learning,
experiments, claims, runtime), never another study. :mod:`crlrepro.studies.registry` gathers them, and
:mod:`crlrepro.studies.summary` renders every study's claims.
"""
