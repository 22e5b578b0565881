"""The model zoo of `bench/run.sh --zoo`: real architectures nobody tuned
Tessel for, built with Debian's torch 1.13 and torchvision 0.14 (random,
seeded weights; BatchNorm statistics filled by a few train-mode batches).

ZOO maps a name to a function that returns (model, example inputs, input
names, output names, export-with-gradients); export_models.py exports them
as it does the benchmark's own models, with torch's outputs as reference.
count_flops() gives 2 x the multiply-adds of every Conv2d, Linear,
MultiheadAttention, LSTM and GRU, counted with forward hooks.
"""

import torch
import torchvision


def fill_batchnorm_statistics(model, shape, batches=3):
    """Random-weight nets have BatchNorm running stats of 0/1, which makes
    deep nets' logits vanish or explode; a few train-mode batches give real
    ones."""
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(*shape))
    model.eval()


def count_flops(model, example, grad=False):
    """grad: run with gradients enabled, as the export does (under no_grad,
    torch 1.13's TransformerEncoder bypasses the modules the hooks watch)."""
    total = [0]

    def conv(module, inputs, output):
        k = module.kernel_size[0] * module.kernel_size[1]
        total[0] += 2 * output.numel() * (module.in_channels // module.groups) * k

    def linear(module, inputs, output):
        total[0] += 2 * output.numel() * module.in_features

    def attention(module, inputs, output):
        # q/k/v and output projections, scores and context. (Its out_proj
        # is applied functionally: no Linear hook sees it. The query may come
        # as a keyword, which hooks do not see: the output has its shape.)
        q = output[0]
        seq = q.shape[1] if module.batch_first else q.shape[0]
        batch = q.shape[0] if module.batch_first else q.shape[1]
        e = module.embed_dim
        total[0] += batch * (2 * seq * e * 4 * e + 2 * seq * seq * e * 2)

    def recurrent(gates):
        def hook(module, inputs, output):
            x = inputs[0]
            seq = x.shape[1] if module.batch_first else x.shape[0]
            h = module.hidden_size
            for layer in range(module.num_layers):
                width = module.input_size if layer == 0 else h
                total[0] += 2 * seq * gates * h * (width + h)
        return hook

    hooks = []
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            hooks.append(m.register_forward_hook(conv))
        elif isinstance(m, torch.nn.Linear):
            hooks.append(m.register_forward_hook(linear))
        elif isinstance(m, torch.nn.MultiheadAttention):
            hooks.append(m.register_forward_hook(attention))
        elif isinstance(m, torch.nn.LSTM):
            hooks.append(m.register_forward_hook(recurrent(4)))
        elif isinstance(m, torch.nn.GRU):
            hooks.append(m.register_forward_hook(recurrent(3)))
    with torch.enable_grad() if grad else torch.no_grad():
        model(*example)
    for h in hooks:
        h.remove()
    return total[0]


class Encoder(torch.nn.Module):
    """Token + position embeddings, a TransformerEncoder (GELU, 4 x d_model
    feed-forward) and a final LayerNorm: the benchmark's BERT-like encoder
    at other widths and depths."""

    def __init__(self, d_model, heads, layers, vocab=1000, seq=128):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, d_model)
        self.positions = torch.nn.Embedding(seq, d_model)
        layer = torch.nn.TransformerEncoderLayer(
            d_model, heads, dim_feedforward=4 * d_model, dropout=0.0,
            activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers)
        self.norm = torch.nn.LayerNorm(d_model)
        self.register_buffer("position_ids", torch.arange(seq).unsqueeze(0))

    def forward(self, input_ids):
        # The positions of the sequence given (BERT's slice): exported with
        # a symbolic length, the table is sliced to it.
        positions = self.position_ids[:, :input_ids.shape[1]]
        x = self.tokens(input_ids) + self.positions(positions)
        return self.norm(self.encoder(x))


class Sequence(torch.nn.Module):
    """A recurrent sequence model: 64 features per step through a 2-layer
    LSTM or GRU (hidden 256), and a per-step Linear to 32 classes."""

    def __init__(self, cell, features=64, hidden=256, layers=2, classes=32):
        super().__init__()
        self.rnn = cell(features, hidden, num_layers=layers, batch_first=True)
        self.head = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.rnn(x)[0])


def vision(ctor, size=224, grad=False, **kwargs):
    """grad: export with gradients enabled (torch 1.13's attention takes a
    fused fast path under no_grad that has no ONNX export)."""
    def build():
        model = ctor(weights=None, **kwargs)
        # torchvision starts ViT's classifier at zero: its logits would all
        # be 0, and a comparison with torch would check nothing.
        head = getattr(getattr(model, "heads", None), "head", None)
        if head is not None:
            torch.nn.init.normal_(head.weight, std=0.02)
        fill_batchnorm_statistics(model, (4, 3, size, size))
        return model, (torch.randn(1, 3, size, size),), ["input"], ["logits"], grad
    return build


def encoder(d_model, heads, layers=4, seq=128):
    def build():
        model = Encoder(d_model, heads, layers, seq=seq).eval()
        ids = torch.randint(0, 1000, (1, seq), dtype=torch.int64)
        # torch 1.13's TransformerEncoder takes a fused fast path under
        # no_grad that has no ONNX export.
        return model, (ids,), ["input_ids"], ["hidden"], True
    return build


def sequence(cell, steps=100):
    def build():
        model = Sequence(cell).eval()
        return model, (torch.randn(1, steps, 64),), ["features"], ["logits"], False
    return build


tv = torchvision.models
ZOO = {
    "resnet50": vision(tv.resnet50),
    "resnext50_32x4d": vision(tv.resnext50_32x4d),
    "mobilenet_v3_small": vision(tv.mobilenet_v3_small),
    "mobilenet_v3_large": vision(tv.mobilenet_v3_large),
    # EfficientNet-B1's own evaluation size.
    "efficientnet_b1": vision(tv.efficientnet_b1, size=240),
    "regnet_y_400mf": vision(tv.regnet_y_400mf),
    "densenet121": vision(tv.densenet121),
    "googlenet": vision(tv.googlenet, aux_logits=False, init_weights=True),
    "squeezenet1_0": vision(tv.squeezenet1_0),
    "shufflenet_v2_x0_5": vision(tv.shufflenet_v2_x0_5),
    "mnasnet0_5": vision(tv.mnasnet0_5),
    "convnext_tiny": vision(tv.convnext_tiny),
    "vit_b_32": vision(tv.vit_b_32, grad=True),
    "encoder_d256": encoder(256, 4),
    "encoder_d384": encoder(384, 6),
    "lstm": sequence(torch.nn.LSTM),
    "gru": sequence(torch.nn.GRU),
}
