"""Card abstraction for limit hold'em: suit-isomorphic indices and bucketing (issue 10).

:mod:`~pokerlab.abstraction.isomorphism` numbers the suit-isomorphism classes of (hole cards,
board) per round; :mod:`~pokerlab.abstraction.strength` computes exact hand strength features
(E[HS], E[HS^2], equity histograms) over every class; :mod:`~pokerlab.abstraction.buckets` groups
the classes into buckets, by the EMD k-means of :mod:`~pokerlab.abstraction.kmeans` where asked.
:mod:`~pokerlab.abstraction.actions` maps a bet off the action abstraction's menu onto it
(pseudo-harmonic translation).
"""
