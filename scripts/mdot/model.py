# The MDOT network in PyTorch (the reference for traces/mdot/) and its JSON
# export; features come from features.py, training from train.py.
"""MDOT: multi-dimensional operator encoding + Transformer + readout.

  e_v   = T[type_v] + Wc (config_v - mu_c)/sd_c + Wl (load_v - mu_l)/sd_l + PE_v
  h     = L pre-LN encoder layers over the sequence e_1..e_n:
          h += Wo MHA(LN1(h)),  h += W2 relu(W1 LN2(h))
  s_v   = w . LNf(h_v) + b                      (operator v's log-time)
  y     = log sum_v exp(s_v)                    (log seconds per iteration)
The readout sums per-operator times that each depend on the whole graph, so
a longer graph costs more without a separate length feature.  With L = 0
and no PE this is the operator-sum baseline (each operator timed alone).
"""
import math

import torch
import torch.nn as nn

import features


class Layer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ff1, self.ff2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, h, mask):
        b, n, d = h.shape
        dh = d // self.heads
        a = self.ln1(h)

        def split(t):
            return t.view(b, n, self.heads, dh).transpose(1, 2)
        q, k, v = split(self.q(a)), split(self.k(a)), split(self.v(a))
        att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(dh)
        att = att.masked_fill(~mask[:, None, None, :], float("-inf")).softmax(-1)
        h = h + self.o(torch.matmul(att, v).transpose(1, 2).reshape(b, n, d))
        return h + self.ff2(torch.relu(self.ff1(self.ln2(h))))


class Mdot(nn.Module):
    def __init__(self, d=32, heads=4, ffn=64, layers=2, pe="graph"):
        super().__init__()
        self.d, self.heads, self.ffn, self.pe = d, heads, ffn, pe
        self.type_emb = nn.Embedding(len(features.VOCAB), d)
        nn.init.zeros_(self.type_emb.weight)  # a type never trained stays neutral
        self.cfg = nn.Linear(features.N_CONFIG, d)
        self.load = nn.Linear(features.N_LOAD, d)
        self.layers = nn.ModuleList(Layer(d, heads, ffn) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.out = nn.Linear(d, 1)
        self.register_buffer("mu", torch.zeros(features.N_CONFIG + features.N_LOAD))
        self.register_buffer("sd", torch.ones(features.N_CONFIG + features.N_LOAD))

    def forward(self, types, feats, pe, mask):
        """types [B,n], feats [B,n,11], pe [B,n,d], mask [B,n] -> log s [B]."""
        x = (feats - self.mu) / self.sd
        nc = features.N_CONFIG
        h = self.type_emb(types) + self.cfg(x[..., :nc]) + self.load(x[..., nc:])
        if self.pe != "none":
            h = h + pe
        for layer in self.layers:
            h = layer(h, mask)
        s = self.out(self.ln_f(h)).squeeze(-1).masked_fill(~mask, float("-inf"))
        return torch.logsumexp(s, dim=-1)


def export_json(model, meta):
    """The weights and settings as a JSON-ready dict (doubles, row-major)."""
    tensors = {name: {"shape": list(t.shape), "data": [float(x) for x in t.double().flatten()]}
               for name, t in model.state_dict().items()}
    return dict(meta, d_model=model.d, heads=model.heads, ffn=model.ffn,
                layers=len(model.layers), pe=model.pe, vocab=features.VOCAB,
                tensors=tensors)
