"""Model registry: every architecture builds for its input shape, sizes match the specs, quirks behave as documented."""

from __future__ import annotations

import pytest
import torch

from fairshare.learning.models import MODELS, build_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CASES = {  # name -> (input shape, classes, options, input factory)
    "mnist_cnn": ((1, 28, 28), 10, {}, None),
    "emnist_cnn": ((1, 28, 28), 47, {}, None),
    "preact_resnet18": ((3, 16, 16), 10, {"width": 4}, None),
    "small_cnn": ((1, 8, 8), 10, {}, None),
    "mlp": ((20,), 4, {}, None),
    "aequa_cnn1": ((1, 12, 12), 10, {}, None),
    "aequa_cnn2": ((3, 16, 16), 10, {"widths": (0.5, 1.0)}, None),
    "aequa_resnet18": ((3, 8, 8), 10, {"widths": (0.5, 1.0), "base": 4}, None),
    "aequa_lstm": ((7,), 5, {"vocab_size": 30, "embed_dim": 6, "hidden": 8}, lambda n: torch.randint(0, 30, (n, 7))),
    "aequa_mlp": ((12,), 3, {"hidden": (8, 8)}, None),
}


def n_params(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("name", MODELS)
def test_every_registered_model_builds_and_classifies(name):
    shape, classes, options, make = CASES[name]
    torch.manual_seed(0)
    model = build_model(name, shape, classes, **options)
    x = make(4) if make else torch.randn(4, *shape)
    model.train()
    out = model(x)
    assert out.shape == (4, classes) and torch.isfinite(out).all()


def test_parameter_counts_match_the_specs():
    assert n_params(build_model("mnist_cnn", (1, 28, 28), 10)) == 1_630_090  # FedFairMMFL spec §2.5: 1.63 M
    assert round(n_params(build_model("preact_resnet18", (3, 32, 32), 10)) / 1e6, 2) == 11.17  # spec §2.5: 11.17 M
    assert n_params(build_model("mlp", (1, 28, 28), 10)) == 784 * 64 + 64 + 64 * 64 + 64 + 64 * 10 + 10  # payoff §3.1
    assert (
        build_model("emnist_cnn", (1, 28, 28), 47).fc2.out_features == 47
    )  # EMNIST balanced: the same CNN, 47 outputs


def test_faithful_mnist_cnn_outputs_probabilities_and_corrected_outputs_logits():
    torch.manual_seed(0)
    x = torch.randn(6, 1, 28, 28)
    faithful = build_model("mnist_cnn", (1, 28, 28), 10, faithful=True)
    probs = faithful(x)
    assert torch.allclose(probs.sum(1), torch.ones(6)) and (probs >= 0).all()  # softmax before cross-entropy
    fixed = build_model("mnist_cnn", (1, 28, 28), 10)
    fixed.load_state_dict(faithful.state_dict())
    logits = fixed(x)
    assert (logits < 0).any() and not torch.allclose(logits.softmax(1), probs)


def test_faithful_cnn_has_no_nonlinearity_between_the_convolutions():
    """conv2's input (conv1's pooled output) takes negative values in the faithful model (no ReLU in between) and
    none in the corrected one."""
    torch.manual_seed(1)
    faithful = build_model("mnist_cnn", (1, 28, 28), 10, faithful=True)
    fixed = build_model("mnist_cnn", (1, 28, 28), 10)
    seen = {}
    faithful.conv2.register_forward_hook(lambda m, inp, out: seen.__setitem__("faithful", inp[0]))
    fixed.conv2.register_forward_hook(lambda m, inp, out: seen.__setitem__("fixed", inp[0]))
    x = torch.randn(3, 1, 28, 28)
    faithful(x)
    fixed(x)
    assert (seen["faithful"] < 0).any() and (seen["fixed"] >= 0).all()


@pytest.mark.parametrize("track", [True, False])
def test_resnet_batch_norm_running_statistics_option(track):
    """Without running statistics (the authors' setting) a sample's evaluation output depends on the rest of its batch."""
    torch.manual_seed(0)
    model = build_model("preact_resnet18", (3, 16, 16), 10, width=4, track_running_stats=track).eval()
    x = torch.randn(8, 3, 16, 16)
    with torch.no_grad():
        alone, batch = model(x[:2]), model(x)[:2]
    assert torch.allclose(alone, batch, atol=1e-5) == track


def test_registry_errors_and_ignored_options():
    with pytest.raises(ValueError, match="unknown model"):
        build_model("vgg", (3, 32, 32), 10)
    with pytest.raises(ValueError, match="widths"):
        build_model("aequa_resnet18", (3, 8, 8), 10)
    with pytest.raises(ValueError, match="vocab_size"):
        build_model("aequa_lstm", (7,), 5)
    # options another model of the same task list needs are ignored
    assert (
        n_params(build_model("mlp", (4,), 2, hidden=(3,), faithful=True, track_running_stats=False))
        == 4 * 3 + 3 + 3 * 2 + 2
    )
