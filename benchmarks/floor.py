"""Hand-written NumPy: the floor. Forward, backward by hand and Keras's Adam in place."""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from benchmarks import workloads as W


class Adam:
    """Keras 3's Adam update, in place on NumPy arrays (t = step + 1):
    alpha = lr sqrt(1 - b2^t) / (1 - b1^t); m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2);
    p -= m alpha / (sqrt(v) + eps)."""

    def __init__(self, params: list) -> None:
        self.params = params
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def __call__(self, grads: list) -> None:
        self.t += 1
        alpha = np.float32(W.LR * np.sqrt(1 - W.BETA_2 ** self.t) / (1 - W.BETA_1 ** self.t))
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m += (g - m) * np.float32(1 - W.BETA_1)
            v += (g * g - v) * np.float32(1 - W.BETA_2)
            p -= (m * alpha) / (np.sqrt(v) + np.float32(W.EPSILON))


def mse_grad(out: np.ndarray, y: np.ndarray) -> tuple:
    diff = out - y
    return float(np.mean(diff * diff)), diff * np.float32(2.0 / diff.size)


def sparse_ce_grad(logits: np.ndarray, labels: np.ndarray) -> tuple:
    """Mean softmax cross-entropy with integer labels, and its gradient."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    rows = np.arange(len(labels))
    loss = float(np.mean(np.log(total[:, 0]) - shifted[rows, labels]))
    grad = exp / total
    grad[rows, labels] -= 1
    grad *= np.float32(1.0 / len(labels))
    return loss, grad


def dense_step(params: list, x: np.ndarray, target: np.ndarray, loss_grad) -> Callable:
    """A training step of Dense layers with ReLU between them."""
    adam = Adam(params)
    n = len(params) // 2

    def step() -> float:
        acts, h = [x], x
        for i in range(n):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < n - 1:
                np.maximum(h, 0, out=h)
            acts.append(h)
        loss, g = loss_grad(h, target)
        grads = [None] * len(params)
        for i in reversed(range(n)):
            grads[2 * i] = acts[i].T @ g
            grads[2 * i + 1] = g.sum(0)
            if i > 0:
                g = g @ params[2 * i].T
                g *= acts[i] > 0
        adam(grads)
        return loss
    return step


def chain_step(x0: np.float32) -> Callable:
    """The scalar chain forward, then its derivative by the chain rule, in float32 scalars."""
    a, b = np.float32(1.01), np.float32(0.1)

    def step() -> float:
        ys, y = [], x0
        for _ in range(W.CHAIN_ROUNDS):
            ys.append(y)
            y = np.sin(y) * a + y * y * b
        grad = np.float32(1.0)
        for y in reversed(ys):
            grad = grad * (np.cos(y) * a + np.float32(2) * b * y)
        return float(grad)
    return step


def hessian(x: np.ndarray) -> np.ndarray:
    """Hessian of sum(sin(x) * sum(x**2)):
    diag(-sin x) s + 2 cos(x) x^T + 2 x cos(x)^T + 2 sum(sin x) I, s = sum(x**2)."""
    s, c = np.sum(x * x), np.cos(x)
    return (np.diag(-np.sin(x) * s) + 2 * np.outer(c, x) + 2 * np.outer(x, c)
            + 2 * np.sum(np.sin(x)) * np.eye(x.size, dtype=x.dtype))


def gemm_step(params: list, x: np.ndarray) -> Callable:
    """The big step's matrix products alone, into preallocated outputs: forward 3
    (x W1, h1 W2, h2 W3), backward 5 (dW3, dh2, dW2, dh1, dW1)."""
    w1, _, w2, _, w3, _ = params
    b = len(x)
    h1, h2, out = (np.empty((b, w.shape[1]), np.float32) for w in (w1, w2, w3))
    g = np.ones_like(out) * np.float32(1e-3)
    dw1, dw2, dw3 = np.empty_like(w1), np.empty_like(w2), np.empty_like(w3)
    dh1, dh2 = np.empty_like(h1), np.empty_like(h2)
    h1[:] = x @ w1
    h2[:] = h1 @ w2

    def step() -> float:
        np.matmul(x, w1, out=h1)
        np.matmul(h1, w2, out=h2)
        np.matmul(h2, w3, out=out)
        np.matmul(h2.T, g, out=dw3)
        np.matmul(g, w3.T, out=dh2)
        np.matmul(h1.T, dh2, out=dw2)
        np.matmul(dh2, w2.T, out=dh1)
        np.matmul(x.T, dh1, out=dw1)
        return float(dw1[0, 0])
    return step


def build(workload: str, mode: str) -> Optional[Callable]:
    """The floor's step for `workload`, or None where there is none (the CNN)."""
    d = W.data(workload)
    if workload == "chain":
        return chain_step(d["x"])
    if workload == "mlp":
        return dense_step(d["params"], d["x"], d["y"], mse_grad)
    if workload == "big":
        return dense_step(d["params"], d["x"], d["labels"], sparse_ce_grad)
    if workload == "hessian":
        return lambda: float(hessian(d["x"]).sum())
    if workload == "gemm":
        return gemm_step(d["params"], d["x"])
    return None
