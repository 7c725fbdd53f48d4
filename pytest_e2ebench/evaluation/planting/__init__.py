"""Planted tests made from new inputs: decoys and honeypots (issue 26, class 1c).

:mod:`.twins` writes the recording copies a trusted run of the reference fills in, and plants
pairs of tests on one new input: a *decoy* expecting what the reference returned (it passes on a
correct project) and a *honeypot* expecting what the reference returned for another input (it
fails on every honest project). :mod:`.values` is the cached stage that runs the recording
copies on the reference, in the sandbox.
"""
