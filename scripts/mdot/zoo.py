# The models the MDOT dataset is collected on: torchvision families and small
# transformers built from torch layers; no tracing or timing here.
"""Model zoo of the MDOT dataset.

Each entry is (family, variant, builder, inputs): builder() returns a fresh
randomly initialised model (no pretrained weights, nothing downloaded) and
inputs lists the (batch, size) pairs to collect; size is the image side for
CNNs and the sequence length for transformers.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm

NUM_CLASSES = 100
VOCAB = 1000


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


def _tv(fn, **kw):
    return lambda: getattr(tvm, fn)(num_classes=NUM_CLASSES, **kw)


def _tf(dim, depth, heads, seq):
    return lambda: TinyTransformer(dim, depth, heads, seq)


CNN_INPUTS = [(2, 64), (8, 64), (4, 96)]
BIG_INPUTS = [(2, 64), (4, 96)]

DEFAULT = (
    [("resnet", v, _tv(v), CNN_INPUTS) for v in ("resnet18", "resnet34", "resnet50")]
    + [("resnet", v, _tv(v), BIG_INPUTS) for v in ("resnet101", "resnext50_32x4d")]
    + [("vgg", v, _tv(v), BIG_INPUTS) for v in ("vgg11", "vgg13", "vgg11_bn", "vgg16")]
    + [("alexnet", "alexnet", _tv("alexnet"), [(2, 64), (8, 64), (16, 64), (4, 96), (8, 128)])]
    + [("googlenet", "googlenet", _tv("googlenet", aux_logits=False, init_weights=False),
        [(2, 64), (8, 64), (4, 96), (4, 128)])]
    + [("inception", "inception_v3", _tv("inception_v3", aux_logits=False, init_weights=False),
        [(2, 96), (4, 96), (2, 128)])]
    + [("mnasnet", v, _tv(v), CNN_INPUTS) for v in ("mnasnet0_5", "mnasnet1_0", "mnasnet1_3")]
    + [("convnext", "convnext_tiny", _tv("convnext_tiny"), BIG_INPUTS)]
    + [("wide_resnet", "wide_resnet50_2", _tv("wide_resnet50_2"), BIG_INPUTS)]
    + [("efficientnet", v, _tv(v), CNN_INPUTS) for v in ("efficientnet_b0", "efficientnet_b1")]
    + [("regnet", v, _tv(v), CNN_INPUTS)
       for v in ("regnet_x_400mf", "regnet_y_400mf", "regnet_x_800mf", "regnet_y_800mf")]
    + [("shufflenet", v, _tv(v), CNN_INPUTS)
       for v in ("shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x2_0")]
    + [("squeezenet", v, _tv(v), CNN_INPUTS + [(16, 64)]) for v in ("squeezenet1_0", "squeezenet1_1")]
    + [("transformer", f"tf_d{d}_l{l}", _tf(d, l, h, 128), [(4, 128)])
       for d, l, h in ((128, 2, 4), (128, 4, 4), (256, 2, 4), (256, 4, 8), (192, 6, 6))]
    + [("transformer", f"tf_d{d}_l{l}_s64", _tf(d, l, h, 64), [(8, 64)])
       for d, l, h in ((128, 4, 4), (256, 6, 8))]
)

# Small and fast: one model of a few families, for the test suite.
QUICK = [
    ("resnet", "resnet18", _tv("resnet18"), [(2, 32)]),
    ("squeezenet", "squeezenet1_1", _tv("squeezenet1_1"), [(2, 64)]),
    ("shufflenet", "shufflenet_v2_x0_5", _tv("shufflenet_v2_x0_5"), [(2, 32)]),
    ("transformer", "tf_d64_l1", _tf(64, 1, 2, 16), [(2, 16)]),
]


def example_input(family, batch, size, gen):
    """A random input batch for a model of `family` (seeded by `gen`)."""
    if family == "transformer":
        return torch.randint(0, VOCAB, (batch, size), generator=gen)
    return torch.randn(batch, 3, size, size, generator=gen)
