#!/usr/bin/python3
# The graph library: one MDOT operator graph per catalog model (traces/
# models.json), built at full size on PyTorch's meta device (shapes only, no
# memory) and exported with opgraph.export, plus the index the replay reads
# under --compute mdot (docs/mdot.md §5).
"""Write traces/graphs/: the operator graph of every catalog model.

usage: library.py [--out DIR] [--only NAME,...]

For every catalog model that is a training job whose layers can be written
as a traced PyTorch module, the model is built with its published shapes
(layers, width, heads, vocabulary, sequence length) on the meta device, so
that a 65-billion-parameter graph costs no memory, traced at batch 1 and
written as DIR/FILE.json.gz; DIR/library.json maps each catalog name to its
file and to the batch the catalog's time is for (per GPU, or per tensor-
and pipeline-parallel group, as models.json says).  Models without a graph
(detection with RoI heads, the diffusion U-Net, inference, non-training
jobs) are listed with "file": null and the reason; the replay keeps their
catalog time.  The shapes are the published ones (docs/models.md cites
them); what a graph leaves out is said in its "note".
"""
import argparse
import gzip
import json
import os
import sys

import torch
import torch.nn as nn
import torchvision.models as tvm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opgraph  # noqa: E402
import zoo  # noqa: E402

META = "meta"


class EncoderBlock(nn.Module):
    """A post-LN Transformer encoder block (BERT, the NMT encoder)."""

    def __init__(self, dim, heads, ffn, device):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, device=device)
        self.proj = nn.Linear(dim, dim, device=device)
        self.ln1 = nn.LayerNorm(dim, device=device)
        self.fc1 = nn.Linear(dim, ffn, device=device)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(ffn, dim, device=device)
        self.ln2 = nn.LayerNorm(dim, device=device)
        self.drop = nn.Dropout(0.1)

    def attend(self, x):
        b, n, d = x.shape[0], x.shape[1], x.shape[2]
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.view(b, n, self.heads, self.dh).transpose(1, 2)
        k = k.view(b, n, self.heads, self.dh).transpose(1, 2)
        v = v.view(b, n, self.heads, self.dh).transpose(1, 2)
        att = ((q @ k.transpose(-2, -1)) / self.dh ** 0.5).softmax(dim=-1)
        return self.proj((self.drop(att) @ v).transpose(1, 2).reshape(b, n, d))

    def forward(self, x):
        x = self.ln1(x + self.drop(self.attend(x)))
        return self.ln2(x + self.drop(self.fc2(self.act(self.fc1(x)))))


class Bert(nn.Module):
    """BERT pretraining: token + position + segment embeddings, post-LN
    encoder, masked-LM head (dense, GELU, LN, decoder over the vocabulary,
    tied to the token embedding)."""

    def __init__(self, dim, depth, heads, seq, vocab=30522, device=None):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim, device=device)
        self.pos = nn.Parameter(torch.zeros(1, seq, dim, device=device))
        self.seg = nn.Parameter(torch.zeros(1, 1, dim, device=device))
        self.ln = nn.LayerNorm(dim, device=device)
        self.blocks = nn.Sequential(*[EncoderBlock(dim, heads, 4 * dim, device)
                                      for _ in range(depth)])
        self.dense = nn.Linear(dim, dim, device=device)
        self.act = nn.GELU()
        self.head_ln = nn.LayerNorm(dim, device=device)
        self.decoder = nn.Linear(dim, vocab, device=device)
        self.decoder.weight = self.tok.weight  # BERT ties the decoder to the embedding

    def forward(self, ids):
        x = self.blocks(self.ln(self.tok(ids) + self.pos + self.seg))
        return self.decoder(self.head_ln(self.act(self.dense(x))))


class DecoderBlock(EncoderBlock):
    """A post-LN Transformer decoder block: causal self-attention,
    attention over the encoder's output, feed-forward."""

    def __init__(self, dim, heads, ffn, seq, device):
        super().__init__(dim, heads, ffn, device)
        self.q2 = nn.Linear(dim, dim, device=device)
        self.kv2 = nn.Linear(dim, 2 * dim, device=device)
        self.proj2 = nn.Linear(dim, dim, device=device)
        self.ln3 = nn.LayerNorm(dim, device=device)
        self.register_buffer("future", torch.ones(seq, seq, dtype=torch.bool,
                                                  device=device).triu(1))

    def forward(self, x, mem):
        b, n, d = x.shape[0], x.shape[1], x.shape[2]
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.view(b, n, self.heads, self.dh).transpose(1, 2)
        k = k.view(b, n, self.heads, self.dh).transpose(1, 2)
        v = v.view(b, n, self.heads, self.dh).transpose(1, 2)
        att = ((q @ k.transpose(-2, -1)) / self.dh ** 0.5).masked_fill(
            self.future, float("-inf")).softmax(dim=-1)
        x = self.ln1(x + self.drop(self.proj((att @ v).transpose(1, 2).reshape(b, n, d))))
        q2 = self.q2(x).view(b, n, self.heads, self.dh).transpose(1, 2)
        k2, v2 = self.kv2(mem).split(d, dim=-1)
        k2 = k2.view(b, n, self.heads, self.dh).transpose(1, 2)
        v2 = v2.view(b, n, self.heads, self.dh).transpose(1, 2)
        att2 = ((q2 @ k2.transpose(-2, -1)) / self.dh ** 0.5).softmax(dim=-1)
        x = self.ln3(x + self.drop(self.proj2((att2 @ v2).transpose(1, 2).reshape(b, n, d))))
        return self.ln2(x + self.drop(self.fc2(self.act(self.fc1(x)))))


class Seq2Seq(nn.Module):
    """Transformer NMT (Vaswani et al.): shared source/target embedding,
    encoder and decoder stacks, output projection over the vocabulary.  The
    input holds the source and target token ids side by side ([N, 2 seq])."""

    def __init__(self, dim, depth, heads, ffn, seq, vocab, device=None):
        super().__init__()
        self.seq = seq
        self.emb = nn.Embedding(vocab, dim, device=device)
        self.pos = nn.Parameter(torch.zeros(1, seq, dim, device=device))
        self.enc = nn.Sequential(*[EncoderBlock(dim, heads, ffn, device) for _ in range(depth)])
        self.dec = nn.ModuleList(DecoderBlock(dim, heads, ffn, seq, device)
                                 for _ in range(depth))
        self.out = nn.Linear(dim, vocab, device=device)

    def forward(self, ids):
        src, tgt = ids[:, :self.seq], ids[:, self.seq:]
        mem = self.enc(self.emb(src) + self.pos)
        x = self.emb(tgt) + self.pos
        for block in self.dec:
            x = block(x, mem)
        return self.out(x)


class Dlrm(nn.Module):
    """DLRM (Naumov et al.): a bottom MLP over 13 dense features, 26
    embedding lookups, pairwise dot-product interaction, a top MLP.  The
    input is [N, 39]: 13 dense values then 26 category ids (as floats)."""

    def __init__(self, rows, dim=128, device=None):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(rows, dim, device=device) for _ in range(26))
        self.bottom = nn.Sequential(*self._mlp([13, 512, 256, dim], device))
        pairs = 27 * 26 // 2
        self.top = nn.Sequential(*self._mlp([pairs + dim, 1024, 1024, 512, 256, 1], device))
        li, lj = torch.triu_indices(27, 27, 1)
        self.register_buffer("li", li.to(device))
        self.register_buffer("lj", lj.to(device))

    @staticmethod
    def _mlp(sizes, device):
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b, device=device), nn.ReLU()]
        return layers

    def forward(self, x):
        dense = self.bottom(x[:, :13])
        ids = x[:, 13:].long()
        feats = [dense] + [e(ids[:, i]) for i, e in enumerate(self.embs)]
        t = torch.stack(feats, dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        return self.top(torch.cat([dense, z[:, self.li, self.lj]], dim=1))


class MnistNet(nn.Module):
    """PyTorch's MNIST example network (1,199,882 parameters)."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 32, 3), nn.Conv2d(32, 64, 3)
        self.pool, self.drop1, self.drop2 = nn.MaxPool2d(2), nn.Dropout(0.25), nn.Dropout(0.5)
        self.fc1, self.fc2 = nn.Linear(9216, 128), nn.Linear(128, 10)

    def forward(self, x):
        x = self.drop1(self.pool(torch.relu(self.conv2(torch.relu(self.conv1(x))))))
        return self.fc2(self.drop2(torch.relu(self.fc1(torch.flatten(x, 1)))))


def _tokens(seq):
    return torch.zeros(1, seq, dtype=torch.long, device=META)


def _lm(kind, dim, depth, heads, vocab, ffn=None):
    return lambda: (zoo.DecoderLM(kind, dim, depth, heads, 2048, vocab, META, ffn), _tokens(2048))


NO_GRAPH = "the catalog's measured time is kept"
# catalog name -> (file stem, builder returning (model, example input at
# batch 1), batch of the catalog's time, note)
MODELS = {
    "ResNet-50": ("resnet50", lambda: (tvm.resnet50().to(META),
                                        torch.zeros(1, 3, 224, 224, device=META)), 256,
                  "torchvision resnet50, 224 px, 1000 classes"),
    "BERT-base": ("bert-base", lambda: (Bert(768, 12, 12, 128, device=META), _tokens(128)), 32,
                  "pretraining, masked-LM head on every token (no NSP head), 128 tokens"),
    "BERT-large": ("bert-large", lambda: (Bert(1024, 24, 16, 128, device=META), _tokens(128)),
                   32, "as BERT-base"),
    "NMT-base": ("nmt-base", lambda: (Seq2Seq(512, 6, 8, 2048, 128, 32768, META),
                                      _tokens(256)), 80,
                 "Transformer base, 128 source + 128 target tokens per pair, 80 pairs = 10240 "
                 "tokens"),
    "NMT-big": ("nmt-big", lambda: (Seq2Seq(1024, 6, 16, 4096, 128, 32768, META),
                                    _tokens(256)), 80, "Transformer big, as NMT-base"),
    "GPT-350M": ("gpt-350m", _lm("gpt", 1024, 24, 16, 50257), 8, "2048 tokens"),
    "GPT-1.3B": ("gpt-1.3b", _lm("gpt", 2048, 24, 16, 50257), 4, "2048 tokens"),
    "GPT-2.7B": ("gpt-2.7b", _lm("gpt", 2560, 32, 32, 50257), 8,
                 "2048 tokens; per TP group (tp 2)"),
    "GPT-6.7B": ("gpt-6.7b", _lm("gpt", 4096, 32, 32, 50257), 32,
                 "2048 tokens; per TP group (tp 8)"),
    "GPT-13B": ("gpt-13b", _lm("gpt", 5120, 40, 40, 50257), 32,
                "2048 tokens; per TP group (tp 8)"),
    "LLaMA-7B": ("llama-7b", _lm("llama", 4096, 32, 32, 32000, 11008), 4,
                 "2048 tokens, no rotary embedding"),
    "LLaMA-13B": ("llama-13b", _lm("llama", 5120, 40, 40, 32000, 13824), 4,
                  "2048 tokens, no rotary embedding"),
    "LLaMA-33B": ("llama-33b", _lm("llama", 6656, 60, 52, 32000, 17920), 32,
                  "2048 tokens, no rotary embedding; per TP x PP group (8 x 2)"),
    "LLaMA-65B": ("llama-65b", _lm("llama", 8192, 80, 64, 32000, 22016), 64,
                  "2048 tokens, no rotary embedding; per TP x PP group (8 x 4)"),
    "RLHF-7B": ("llama-7b", None, 2, "the LLaMA-7B graph at 2 sequences (training phase)"),
    "CTR-DLRM": ("dlrm", lambda: (Dlrm(200000, device=META),
                                  torch.zeros(1, 39, device=META)), 2048,
                 "26 tables of 200,000 x 128 (668 M parameters), MLPerf MLP sizes"),
    "MNIST-CNN": ("mnist-cnn", lambda: (MnistNet().to(META),
                                        torch.zeros(1, 1, 28, 28, device=META)), 64,
                  "PyTorch's MNIST example"),
    "MIND": (None, None, None, "multi-interest capsule routing is not written as a traced "
             "module yet; " + NO_GRAPH),
    "FasterRCNN-R50-FPN": (None, None, None, "region proposals, RoI pooling and NMS do not "
                           "trace to a static operator graph; " + NO_GRAPH),
    "Diffusion-UNet": (None, None, None, "the U-Net is not written as a traced module yet; "
                       + NO_GRAPH),
    "Inference-130B": (None, None, None, "not a training iteration (MDOT predicts forward, "
                       "backward and optimizer step); " + NO_GRAPH),
    "Non-training": (None, None, None, "not a training job; " + NO_GRAPH),
}


def export(name, stem, builder, out):
    model, x = builder()
    g = opgraph.export(model, x, name=stem)
    path = os.path.join(out, f"{stem}.json.gz")
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(json.dumps(g, separators=(",", ":")).encode())
    print(f"{name}: {path}, {len(g['ops'])} operators, {g['params'] / 1e6:.1f} M parameters",
          file=sys.stderr)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="traces/graphs")
    p.add_argument("--only", help="comma-separated catalog names to re-export")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    index = {}
    for name, (stem, builder, batch, note) in MODELS.items():
        if stem is None:
            index[name] = {"file": None, "why": note}
            continue
        index[name] = {"file": f"{stem}.json.gz", "batch": batch, "note": note}
        if builder is not None and (only is None or name in only):
            torch.manual_seed(0)
            export(name, stem, builder, args.out)
    with open(os.path.join(args.out, "library.json"), "w") as f:
        json.dump({"about": "MDOT graph library: catalog model -> operator graph (batch 1) "
                            "and the batch of the catalog's time; written by "
                            "scripts/mdot/library.py (docs/mdot.md §5)",
                   "graphs": index}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
