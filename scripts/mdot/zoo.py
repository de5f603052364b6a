# The models the MDOT dataset is collected on: torchvision families, small
# transformer encoders and GPT/LLaMA-style decoder stacks built from torch
# layers; no tracing or timing here.
"""Model zoo of the MDOT dataset.

Each entry is (family, variant, builder, inputs): builder(device) returns a
fresh randomly initialised model (no pretrained weights, nothing downloaded)
and inputs lists the (batch, size) pairs to collect; size is the image side
for CNNs and the sequence length for transformers.  LINEAGE puts every family
in its architecture lineage, the unit the evaluation holds out together
(train.py): ResNet, ResNeXt, Wide ResNet and RegNet (whose X block is the
ResNeXt bottleneck) are one lineage; MnasNet, EfficientNet and MobileNet v2/v3
(inverted-residual MBConv blocks) another; every transformer a third.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm

NUM_CLASSES = 100
VOCAB = 1000

# family -> lineage (the cross-validation unit of train.py)
LINEAGE = {
    "resnet": "resnet", "wide_resnet": "resnet", "regnet": "resnet",
    "mnasnet": "mbconv", "efficientnet": "mbconv", "mobilenet": "mbconv",
    "vgg": "plain", "alexnet": "plain",
    "googlenet": "inception", "inception": "inception",
    "convnext": "convnext", "shufflenet": "shufflenet", "squeezenet": "squeezenet",
    "transformer": "transformer", "gpt": "transformer", "llama": "transformer",
}
TOKEN_FAMILIES = {"transformer", "gpt", "llama"}


class Attention(nn.Module):
    """Multi-head self-attention written with Linear, matmul and softmax."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape[0], x.shape[1], x.shape[2]
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = F.softmax(torch.matmul(q, k.transpose(-2, -1)) * (self.dh ** -0.5), dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, n, d)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.att = nn.LayerNorm(dim), Attention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1, self.act, self.fc2 = nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = x + self.drop(self.att(self.ln1(x)))
        return x + self.drop(self.fc2(self.act(self.fc1(self.ln2(x)))))


class TinyTransformer(nn.Module):
    """A pre-LN encoder classifier over token ids (BERT-like, small)."""

    def __init__(self, dim, depth, heads, seq):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim)
        self.pos = nn.Parameter(torch.zeros(1, seq, dim))
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, NUM_CLASSES)

    def forward(self, ids):
        x = self.blocks(self.emb(ids) + self.pos)
        return self.head(self.ln(x).mean(dim=1))


# ---- decoder-only language models (GPT-2 and LLaMA layouts) -------------

class CausalAttention(nn.Module):
    """Causal multi-head attention: fused QKV projection split in three,
    scores divided by sqrt(head dim), future positions masked."""

    def __init__(self, dim, heads, seq, bias, device):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=bias, device=device)
        self.proj = nn.Linear(dim, dim, bias=bias, device=device)
        self.register_buffer("future", torch.ones(seq, seq, dtype=torch.bool,
                                                  device=device).triu(1))

    def forward(self, x):
        b, n, d = x.shape[0], x.shape[1], x.shape[2]
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.view(b, n, self.heads, self.dh).transpose(1, 2)
        k = k.view(b, n, self.heads, self.dh).transpose(1, 2)
        v = v.view(b, n, self.heads, self.dh).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.dh)
        att = att.masked_fill(self.future, float("-inf")).softmax(dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, n, d))


class RMSNorm(nn.Module):
    """LLaMA's root-mean-square norm: x / sqrt(mean(x^2) + eps) * weight."""

    def __init__(self, dim, device, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class GPTBlock(nn.Module):
    """GPT-2 block: pre-LN, causal attention, 4x GELU MLP, dropout."""

    def __init__(self, dim, heads, seq, device, ffn=None):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim, device=device)
        self.att = CausalAttention(dim, heads, seq, True, device)
        self.ln2 = nn.LayerNorm(dim, device=device)
        self.fc1 = nn.Linear(dim, 4 * dim, device=device)
        self.act = nn.GELU(approximate="tanh")
        self.fc2 = nn.Linear(4 * dim, dim, device=device)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = x + self.drop(self.att(self.ln1(x)))
        return x + self.drop(self.fc2(self.act(self.fc1(self.ln2(x)))))


class LlamaBlock(nn.Module):
    """LLaMA block: RMSNorm, causal attention without biases, SwiGLU MLP
    (hidden `ffn`, default 8/3 x dim rounded up to 32).  No rotary
    embedding: it adds only element-wise work that the operator set
    already has."""

    def __init__(self, dim, heads, seq, device, ffn=None):
        super().__init__()
        hidden = ffn or 32 * math.ceil(8 * dim / 3 / 32)
        self.n1, self.n2 = RMSNorm(dim, device), RMSNorm(dim, device)
        self.att = CausalAttention(dim, heads, seq, False, device)
        self.w1 = nn.Linear(dim, hidden, bias=False, device=device)
        self.w3 = nn.Linear(dim, hidden, bias=False, device=device)
        self.w2 = nn.Linear(hidden, dim, bias=False, device=device)

    def forward(self, x):
        x = x + self.att(self.n1(x))
        h = self.n2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class DecoderLM(nn.Module):
    """A decoder-only language model: token embedding (+ learned positions
    for GPT), `depth` blocks, final norm, LM head over `vocab` tokens (tied
    to the embedding for GPT); the output is [batch, seq, vocab] logits (a
    next-token loss per token)."""

    def __init__(self, kind, dim, depth, heads, seq, vocab=VOCAB, device=None, ffn=None):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, device=device)
        block = GPTBlock if kind == "gpt" else LlamaBlock
        self.pos = nn.Parameter(torch.zeros(1, seq, dim, device=device)) if kind == "gpt" else None
        self.blocks = nn.Sequential(*[block(dim, heads, seq, device, ffn) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, device=device) if kind == "gpt" else RMSNorm(dim, device)
        self.head = nn.Linear(dim, vocab, bias=False, device=device)
        if kind == "gpt":
            self.head.weight = self.emb.weight  # GPT ties the LM head to the embedding

    def forward(self, ids):
        x = self.emb(ids)
        if self.pos is not None:
            x = x + self.pos
        return self.head(self.norm(self.blocks(x)))


def _tv(fn, **kw):
    return lambda: getattr(tvm, fn)(num_classes=NUM_CLASSES, **kw)


def _tf(dim, depth, heads, seq):
    return lambda: TinyTransformer(dim, depth, heads, seq)


def _lm(kind, dim, depth, heads, seq):
    return lambda: DecoderLM(kind, dim, depth, heads, seq)


CNN_INPUTS = [(2, 64), (8, 64), (4, 96), (16, 64), (1, 64), (4, 64)]
SMALL_INPUTS = CNN_INPUTS + [(32, 64)]
BIG_INPUTS = [(2, 64), (4, 96), (8, 64), (1, 64)]


def _lms(kind, shapes):
    """Decoder rows: (dim, depth, heads, [(batch, seq), ...]) -> zoo entries."""
    out = []
    for dim, depth, heads, inputs in shapes:
        for seq in sorted({s for _, s in inputs}):
            out.append((kind, f"{kind}_d{dim}_l{depth}_s{seq}", _lm(kind, dim, depth, heads, seq),
                        [(b, s) for b, s in inputs if s == seq]))
    return out


DEFAULT = (
    [("resnet", v, _tv(v), SMALL_INPUTS) for v in ("resnet18",)]
    + [("resnet", v, _tv(v), CNN_INPUTS) for v in ("resnet34", "resnet50")]
    + [("resnet", v, _tv(v), BIG_INPUTS) for v in ("resnet101", "resnext50_32x4d")]
    + [("wide_resnet", "wide_resnet50_2", _tv("wide_resnet50_2"), BIG_INPUTS)]
    + [("regnet", v, _tv(v), CNN_INPUTS)
       for v in ("regnet_x_400mf", "regnet_y_400mf", "regnet_x_800mf", "regnet_y_800mf")]
    + [("vgg", v, _tv(v), BIG_INPUTS) for v in ("vgg11", "vgg13", "vgg11_bn", "vgg16")]
    + [("alexnet", "alexnet", _tv("alexnet"),
        [(2, 64), (8, 64), (16, 64), (4, 96), (8, 128), (32, 64), (1, 64)])]
    + [("googlenet", "googlenet", _tv("googlenet", aux_logits=False, init_weights=False),
        [(2, 64), (8, 64), (4, 96), (4, 128), (1, 64)])]
    + [("inception", "inception_v3", _tv("inception_v3", aux_logits=False, init_weights=False),
        [(2, 96), (4, 96), (2, 128), (1, 128)])]
    + [("mnasnet", v, _tv(v), CNN_INPUTS) for v in ("mnasnet0_5", "mnasnet1_0", "mnasnet1_3")]
    + [("efficientnet", v, _tv(v), CNN_INPUTS) for v in ("efficientnet_b0", "efficientnet_b1")]
    + [("mobilenet", v, _tv(v), SMALL_INPUTS)
       for v in ("mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large")]
    + [("convnext", "convnext_tiny", _tv("convnext_tiny"), BIG_INPUTS)]
    + [("shufflenet", v, _tv(v), CNN_INPUTS)
       for v in ("shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x2_0")]
    + [("squeezenet", v, _tv(v), SMALL_INPUTS) for v in ("squeezenet1_0", "squeezenet1_1")]
    + [("transformer", f"tf_d{d}_l{l}", _tf(d, l, h, 128), [(4, 128), (1, 128)])
       for d, l, h in ((128, 2, 4), (128, 4, 4), (256, 2, 4), (256, 4, 8), (192, 6, 6))]
    + [("transformer", f"tf_d{d}_l{l}_s64", _tf(d, l, h, 64), [(8, 64), (2, 64)])
       for d, l, h in ((128, 4, 4), (256, 6, 8))]
    + _lms("gpt", [(128, 2, 4, [(4, 64), (2, 128), (8, 128), (2, 256), (1, 256)]),
                   (256, 2, 4, [(4, 64), (2, 128), (4, 256), (1, 256)]),
                   (384, 2, 6, [(2, 128), (4, 128), (2, 256), (1, 256)]),
                   (512, 2, 8, [(2, 64), (2, 128), (2, 256), (1, 256)]),
                   (256, 4, 4, [(2, 128), (4, 64), (1, 128)])])
    + _lms("llama", [(256, 2, 4, [(4, 64), (2, 128), (2, 256), (1, 256)]),
                     (512, 2, 8, [(4, 64), (2, 128), (1, 128)]),
                     (384, 3, 6, [(2, 128), (1, 128)])])
)

# Small and fast: one model of a few families, for the test suite.
QUICK = [
    ("resnet", "resnet18", _tv("resnet18"), [(2, 32)]),
    ("squeezenet", "squeezenet1_1", _tv("squeezenet1_1"), [(2, 64)]),
    ("shufflenet", "shufflenet_v2_x0_5", _tv("shufflenet_v2_x0_5"), [(2, 32)]),
    ("transformer", "tf_d64_l1", _tf(64, 1, 2, 16), [(2, 16)]),
    ("llama", "llama_d64_l1_s16", _lm("llama", 64, 1, 2, 16), [(2, 16)]),
]


def example_input(family, batch, size, gen, device="cpu"):
    """A random input batch for a model of `family` (seeded by `gen`, made
    on the CPU and moved to `device`)."""
    if family in TOKEN_FAMILIES:
        x = torch.randint(0, VOCAB, (batch, size), generator=gen)
    else:
        x = torch.randn(batch, 3, size, size, generator=gen)
    return x.to(device)
