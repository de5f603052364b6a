# The MDOT network in PyTorch (the reference for traces/mdot_model.c), the
# learned baselines that share its encoding and readout (LSTM, GNN), and the
# JSON export; features come from features.py, training from train.py.
"""MDOT-2: operator encoding, context, and a readout that scales with batch.

Every operator v has batch-free inputs (features.py): its type, 8
configuration numbers and 3 per-sample loads (FLOPs per sample f_v,
activation bytes per sample a_v, parameter bytes p_v).  The network maps
them, in the context of the whole graph, to three log-corrections u_v of a
roofline-style prior, and the time of one iteration at batch N is

  T(N) = sum_v [ exp(u0_v) tau + exp(u1_v) N f_v / P + exp(u2_v) (N a_v + p_v) / BW ]
       = A + B N,   A, B >= 0,

with tau (seconds per operator), P (FLOP/s) and BW (bytes/s) fitted on the
training rows (fit_prior).  Since no input depends on N, the prediction is
exactly affine in the batch: it grows in proportion to the work at large
batches and can never shrink when the batch grows.

Context ("ctx"):
  transformer  e_v + graph PE, L pre-LN encoder layers whose attention sees
               the operators at most `window` places away in the topological
               order (linear cost), h += Wo MHA(LN1(h)), h += W2 relu(W1 LN2(h))
  lstm         a bidirectional LSTM over the topological sequence (baseline)
  gnn          DNNPerf-style message passing over the operator graph: each
               round, messages from predecessors and from successors
               (their state and the tensor on the edge), mean-aggregated,
               update h += W2 relu(W1 [LN(h); m_in; m_out]) (baseline)
  none         no context: each operator on its own (window 0)
then u_v = W_out LNf(h_v) + b_out, initialised to zero (the prior).
"""
import math

import torch
import torch.nn as nn

import features

N_HEADS_OUT = 3  # u0 (overhead), u1 (compute), u2 (memory)


class Layer(nn.Module):
    """A pre-LN encoder layer whose self-attention sees, for operator i, the
    operators j with |i - j| <= window (cost linear in the graph's size)."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ff1, self.ff2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, h, window, allowed):
        """allowed [B, n, 2 window + 1]: whether query i may attend to key
        i - window + w."""
        b, n, d = h.shape
        dh = d // self.heads
        a = self.ln1(h)

        def split(t):
            return t.view(b, n, self.heads, dh).transpose(1, 2)

        def bands(t):  # [B,H,n,dh] -> [B,H,n,dh,2w+1]: keys i-w .. i+w
            return nn.functional.pad(t, (0, 0, window, window)).unfold(2, 2 * window + 1, 1)
        q, k, v = split(self.q(a)), bands(split(self.k(a))), bands(split(self.v(a)))
        att = torch.einsum("bhnd,bhndw->bhnw", q, k) / math.sqrt(dh)
        att = att.masked_fill(~allowed[:, None], float("-inf")).softmax(-1)
        ctx = torch.einsum("bhnw,bhndw->bhnd", att, v)
        h = h + self.o(ctx.transpose(1, 2).reshape(b, n, d))
        return h + self.ff2(torch.relu(self.ff1(self.ln2(h))))


def band_mask(mask, window):
    """[B, n, 2w+1]: key i - w + j is a real operator (the query itself is
    always allowed, so that padding rows are not empty)."""
    b, n = mask.shape
    keys = torch.arange(n)[:, None] - window + torch.arange(2 * window + 1)[None, :]
    inside = (keys >= 0) & (keys < n)
    real = mask[:, keys.clamp(0, n - 1)] & inside[None]
    real[:, :, window] = True
    return real


class GnnLayer(nn.Module):
    """One round of message passing along the graph's edges, both ways."""

    def __init__(self, d):
        super().__init__()
        self.msg_in, self.msg_out = nn.Linear(d + 1, d), nn.Linear(d + 1, d)
        self.ln = nn.LayerNorm(d)
        self.up1, self.up2 = nn.Linear(3 * d, 2 * d), nn.Linear(2 * d, d)

    def forward(self, h, a_in, a_out, edge):
        """a_in [B,n,n]: row v averages v's predecessors; a_out: successors;
        edge [B,n,1]: the tensor a node sends (log elements per sample)."""
        src = torch.cat([h, edge], -1)
        m_in = torch.bmm(a_in, torch.relu(self.msg_in(src)))
        m_out = torch.bmm(a_out, torch.relu(self.msg_out(src)))
        return h + self.up2(torch.relu(self.up1(torch.cat([self.ln(h), m_in, m_out], -1))))


class Mdot(nn.Module):
    def __init__(self, d=16, heads=2, ffn=32, layers=2, window=16, ctx="transformer",
                 pe="graph"):
        super().__init__()
        self.d, self.heads, self.ffn, self.window = d, heads, ffn, window
        self.ctx, self.pe = ctx, pe
        self.type_emb = nn.Embedding(len(features.VOCAB), d)
        nn.init.zeros_(self.type_emb.weight)  # a type never trained adds nothing
        self.cfg = nn.Linear(features.N_CONFIG, d)
        self.load = nn.Linear(features.N_LOAD, d)
        if ctx in ("transformer", "none"):
            self.layers = nn.ModuleList(Layer(d, heads, ffn) for _ in range(layers))
        elif ctx == "lstm":
            self.lstm = nn.LSTM(d, d // 2, num_layers=layers, batch_first=True,
                                bidirectional=True)
        elif ctx == "gnn":
            self.gnn = nn.ModuleList(GnnLayer(d) for _ in range(layers))
        self.n_layers = layers
        self.ln_f = nn.LayerNorm(d)
        self.out = nn.Linear(d, N_HEADS_OUT)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)
        self.register_buffer("mu", torch.zeros(features.N_FEAT))
        self.register_buffer("sd", torch.ones(features.N_FEAT))
        # roofline prior: seconds per operator, FLOP/s, bytes/s
        self.register_buffer("prior", torch.tensor([1e-5, 1e10, 1e10]))

    def corrections(self, types, feats, pe, mask, graph=None):
        """u [B, n, 3] for operators types [B,n], feats [B,n,11], pe [B,n,d],
        mask [B,n] (real operators); graph = (a_in, a_out) for gnn."""
        x = (feats - self.mu) / self.sd
        nc = features.N_CONFIG
        h = self.type_emb(types) + self.cfg(x[..., :nc]) + self.load(x[..., nc:])
        if self.ctx == "transformer" and self.pe != "none":
            h = h + pe
        if self.ctx in ("transformer", "none"):
            w = self.window if self.ctx == "transformer" else 0
            allowed = band_mask(mask, w)
            for layer in self.layers:
                h = layer(h, w, allowed)
        elif self.ctx == "lstm":
            lengths = mask.sum(1).cpu()
            packed = nn.utils.rnn.pack_padded_sequence(h, lengths, batch_first=True,
                                                       enforce_sorted=False)
            h, _ = self.lstm(packed)
            h, _ = nn.utils.rnn.pad_packed_sequence(h, batch_first=True,
                                                    total_length=types.shape[1])
        elif self.ctx == "gnn":
            a_in, a_out = graph
            edge = x[..., 6:7]  # output elements per sample: the tensor on each out-edge
            for layer in self.gnn:
                h = layer(h, a_in, a_out, edge)
        return self.out(self.ln_f(h))

    def op_times(self, u, loads, batch):
        """Per-operator seconds [B, n] at batch [B] from u [B,n,3] and raw
        per-sample loads [B,n,3] = (f_v, a_v, p_v) (features.raw_loads)."""
        fixed, per_sample = self.op_affine(u, loads)
        return fixed + per_sample * batch[:, None]

    def op_affine(self, u, loads):
        """Each operator's (fixed s, s per sample), [B, n] each."""
        tau, flops_s, bytes_s = self.prior[0], self.prior[1], self.prior[2]
        f, a, p = loads[..., 0], loads[..., 1], loads[..., 2]
        mem = torch.exp(u[..., 2]) / bytes_s
        return (torch.exp(u[..., 0]) * tau + mem * p,
                torch.exp(u[..., 1]) * f / flops_s + mem * a)

    def affine(self, types, feats, pe, mask, loads, graph=None):
        """(fixed_s [B], per_sample_s [B]): T(N) = fixed_s + per_sample_s N."""
        u = self.corrections(types, feats, pe, mask, graph)
        fixed, per_sample = self.op_affine(u, loads)
        return fixed.masked_fill(~mask, 0.0).sum(-1), per_sample.masked_fill(~mask, 0.0).sum(-1)

    def forward(self, types, feats, pe, mask, loads, batch, graph=None):
        """log seconds per iteration [B]."""
        fixed, per_sample = self.affine(types, feats, pe, mask, loads, graph)
        return torch.log(fixed + per_sample * batch)


def export_json(model, meta):
    """The weights and settings as a JSON-ready dict (doubles, row-major)."""
    assert model.ctx == "transformer", "only the transformer context has a C inference"
    tensors = {name: {"shape": list(t.shape), "data": [float(x) for x in t.double().flatten()]}
               for name, t in model.state_dict().items()}
    return dict(meta, d_model=model.d, heads=model.heads, ffn=model.ffn,
                layers=model.n_layers, window=model.window, pe=model.pe,
                vocab=features.VOCAB, tensors=tensors)
