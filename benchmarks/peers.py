"""The peers: PyTorch (eager, `torch.compile`), JAX (eager, `jit`) and autograd, each step
written the way that library's users write it, from the same arrays and initial weights.
PyTorch uses `torch.optim.Adam`; JAX and autograd use Keras's Adam formula by hand."""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from benchmarks import floor
from benchmarks import workloads as W


# -- PyTorch ------------------------------------------------------------------------------------

def _torch_dense(torch, sizes: list, params: list):
    mods = []
    for i, (fan_in, fan_out) in enumerate(sizes):
        mods.append(torch.nn.Linear(fan_in, fan_out))
        if i < len(sizes) - 1:
            mods.append(torch.nn.ReLU())
    for j, lin in enumerate(m for m in mods if isinstance(m, torch.nn.Linear)):
        lin.weight.data = torch.tensor(params[2 * j].T.copy())   # PyTorch keeps (out, in)
        lin.bias.data = torch.tensor(params[2 * j + 1])
    return torch.nn.Sequential(*mods)


def _torch_cnn(torch, params: list):
    nn, (c1, c2) = torch.nn, W.CNN_FILTERS
    model = nn.Sequential(nn.Conv2d(1, c1, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(c1, c2, 3),
                          nn.ReLU(), nn.Flatten(), nn.Linear(11 * 11 * c2, W.CLASSES))
    k1, b1, k2, b2, dense, bias = params
    # Keras flattens NHWC as (h, w, c), PyTorch NCHW as (c, h, w): permute the Dense rows.
    dense = dense.reshape(11, 11, c2, W.CLASSES).transpose(2, 0, 1, 3).reshape(-1, W.CLASSES)
    for mod, w, b in ((model[0], k1.transpose(3, 2, 0, 1), b1),
                      (model[3], k2.transpose(3, 2, 0, 1), b2), (model[6], dense.T, bias)):
        mod.weight.data = torch.tensor(np.ascontiguousarray(w))
        mod.bias.data = torch.tensor(b)
    return model


def _torch_train(torch, model, loss_fn, x, y, compiled: bool) -> Callable:
    optimizer = torch.optim.Adam(model.parameters(), lr=W.LR, eps=W.EPSILON)
    forward = torch.compile(model) if compiled else model
    x, y = torch.from_numpy(x), torch.from_numpy(y)

    def run():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(forward(x), y)
        loss.backward()
        optimizer.step()
        return loss
    return run


def torch_build(workload: str, mode: str) -> Optional[Callable]:
    import torch
    compiled = mode == "compiled"
    d = W.data(workload)
    if compiled and workload in ("chain", "hessian"):
        return None      # compiling the 100-op chain did not finish in 150 s here
    if workload == "chain":
        x = torch.tensor(d["x"], requires_grad=True)

        def forward(y):
            for _ in range(W.CHAIN_ROUNDS):
                y = torch.sin(y) * 1.01 + y * y * 0.1
            return y
        return lambda: torch.autograd.grad(forward(x), x)[0]
    if workload == "hessian":
        x = torch.from_numpy(d["x"])
        hess = torch.func.hessian(lambda v: torch.sum(torch.sin(v) * torch.sum(v ** 2)))
        return lambda: hess(x).sum()
    ce = torch.nn.functional.cross_entropy
    if workload == "mlp":
        return _torch_train(torch, _torch_dense(torch, W.MLP_SIZES, d["params"]),
                            torch.nn.functional.mse_loss, d["x"], d["y"], compiled)
    if workload == "big":
        return _torch_train(torch, _torch_dense(torch, W.BIG_SIZES, d["params"]),
                            ce, d["x"], d["labels"].astype(np.int64), compiled)
    if workload == "cnn":
        x = np.ascontiguousarray(d["x"].transpose(0, 3, 1, 2))
        return _torch_train(torch, _torch_cnn(torch, d["params"]), ce, x,
                            d["labels"].astype(np.int64), compiled)
    if workload == "lstm" and not compiled:
        from benchmarks.bench_lstm import torch_step
        step = torch_step(torch, d["params"])
        x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["labels"].astype(np.int64))
        return lambda: step(x, y)
    return None


# -- JAX ----------------------------------------------------------------------------------------

def _jax_adam(jnp, params, grads, m, v, t):
    """Keras's Adam, functional (t: the step count before this step, a float32 array)."""
    t = t + 1
    alpha = W.LR * jnp.sqrt(1 - jnp.power(jnp.float32(W.BETA_2), t)) / (
        1 - jnp.power(jnp.float32(W.BETA_1), t))
    m = [mi + (g - mi) * (1 - W.BETA_1) for mi, g in zip(m, grads)]
    v = [vi + (g * g - vi) * (1 - W.BETA_2) for vi, g in zip(v, grads)]
    params = [p - (mi * alpha) / (jnp.sqrt(vi) + W.EPSILON) for p, mi, vi in zip(params, m, v)]
    return params, m, v, t


def _jax_dense(jnp, params, x):
    n = len(params) // 2
    for i in range(n):
        x = x @ params[2 * i] + params[2 * i + 1]
        if i < n - 1:
            x = jnp.maximum(x, 0)
    return x


def _jax_cnn(jax, jnp, params, x):
    k1, b1, k2, b2, dense, bias = params
    dims = ("NHWC", "HWIO", "NHWC")
    conv = jax.lax.conv_general_dilated
    h = jnp.maximum(conv(x, k1, (1, 1), "VALID", dimension_numbers=dims) + b1, 0)
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jnp.maximum(conv(h, k2, (1, 1), "VALID", dimension_numbers=dims) + b2, 0)
    return h.reshape(h.shape[0], -1) @ dense + bias


def _jax_ce(jax, jnp, logits, labels):
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))


def _jax_train(jax, jnp, loss_fn, params, x, y, compiled: bool) -> Callable:
    def step(state, x, y):
        params, m, v, t = state
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return _jax_adam(jnp, params, grads, m, v, t), loss
    if compiled:
        step = jax.jit(step, donate_argnums=0)
    params = [jnp.asarray(p) for p in params]
    box = [(params, [jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params],
            jnp.float32(0))]
    x, y = jnp.asarray(x), jnp.asarray(y)

    def run():
        box[0], loss = step(box[0], x, y)
        return jax.block_until_ready(loss)
    return run


def jax_build(workload: str, mode: str) -> Optional[Callable]:
    import jax
    import jax.numpy as jnp
    compiled = mode == "compiled"
    d = W.data(workload)
    wrap = jax.jit if compiled else (lambda f: f)
    if workload == "chain":
        def forward(y):
            for _ in range(W.CHAIN_ROUNDS):
                y = jnp.sin(y) * 1.01 + y * y * 0.1
            return y
        grad, x = wrap(jax.grad(forward)), jnp.float32(d["x"])
        return lambda: grad(x).block_until_ready()
    if workload == "hessian":
        hess = jax.hessian(lambda v: jnp.sum(jnp.sin(v) * jnp.sum(v ** 2)))
        total, x = wrap(lambda v: jnp.sum(hess(v))), jnp.asarray(d["x"])
        return lambda: total(x).block_until_ready()
    if workload == "mlp":
        def mse(params, x, y):
            return jnp.mean((_jax_dense(jnp, params, x) - y) ** 2)
        return _jax_train(jax, jnp, mse, d["params"], d["x"], d["y"], compiled)
    if workload == "big":
        def loss(params, x, y):
            return _jax_ce(jax, jnp, _jax_dense(jnp, params, x), y)
        return _jax_train(jax, jnp, loss, d["params"], d["x"], d["labels"], compiled)
    if workload == "cnn":
        def loss(params, x, y):
            return _jax_ce(jax, jnp, _jax_cnn(jax, jnp, params, x), y)
        return _jax_train(jax, jnp, loss, d["params"], d["x"], d["labels"], compiled)
    return None


# -- autograd -----------------------------------------------------------------------------------

def autograd_build(workload: str, mode: str) -> Optional[Callable]:
    import autograd
    import autograd.numpy as anp
    if mode == "compiled":
        return None
    d = W.data(workload)
    if workload == "chain":
        def forward(y):
            for _ in range(W.CHAIN_ROUNDS):
                y = anp.sin(y) * 1.01 + y * y * 0.1
            return y
        grad = autograd.grad(forward)
        return lambda: grad(d["x"])
    if workload == "hessian":
        hess = autograd.hessian(lambda v: anp.sum(anp.sin(v) * anp.sum(v ** 2)))
        return lambda: hess(d["x"]).sum()

    def dense(params, x):
        n = len(params) // 2
        for i in range(n):
            x = anp.dot(x, params[2 * i]) + params[2 * i + 1]
            if i < n - 1:
                x = anp.maximum(x, 0)
        return x
    if workload == "mlp":
        def loss(params):
            return anp.mean((dense(params, d["x"]) - d["y"]) ** 2)
    elif workload == "big":
        rows = np.arange(W.BIG_BATCH)

        def loss(params):
            z = dense(params, d["x"])
            z = z - anp.max(z, axis=1, keepdims=True)
            logp = z - anp.log(anp.sum(anp.exp(z), axis=1, keepdims=True))
            return -anp.mean(logp[rows, d["labels"]])
    else:
        return None       # no convolution in autograd.numpy
    params = d["params"]
    value_and_grad, adam = autograd.value_and_grad(loss), floor.Adam(params)

    def run():
        value, grads = value_and_grad(params)
        adam(grads)
        return value
    return run
