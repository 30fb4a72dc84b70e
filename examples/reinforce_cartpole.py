"""REINFORCE with a learned baseline balances a pole (CartPole-v1 from gymnasium).

The policy gradient theorem, as in Sutton and Barto (section 13.4): the gradient of the
expected return is E[(G_t - b(s_t)) grad log pi(a_t | s_t)], with G_t the discounted return
from step t and b a baseline (here a learned state-value network) that lowers the variance.
The program

- samples actions with `tf.random.categorical` from the policy network's logits, playing a
  batch of 10 episodes in lockstep (one sampling op per time step for all of them);
- computes the discounted returns, the advantages G_t - b(s_t), and the log-probabilities
  of the actions taken (`tf.nn.log_softmax`), and takes the gradients of the policy and value
  losses with one `GradientTape`, applied by Adam;
- stops when the average return of the last 100 episodes reaches 195 (CartPole's classic
  "solved" bar) and prints the average rising along the way.

Fixed seeds (`keras.utils.set_random_seed` and the environments'), so a run repeats exactly:
it reaches an average return of 199.9 over episodes 191-290, i.e. solved after 290 episodes
(29 updates), in about 11 s on 2 cores. Seeds 1, 2, 3 take 250, 330 and 580 episodes.

Needs the optional extra: `pip install gymnasium`.
Run: `python examples/reinforce_cartpole.py`. The last line is the 100-episode average and
the number of episodes it took.
"""

import sys
import time

import numpy as np

import tapeflow as tf
from tapeflow import keras

from _plotting import save_plot  # examples/_plotting.py

try:
    import gymnasium as gym
except ImportError:
    sys.exit("This example needs gymnasium: pip install gymnasium")

GAMMA = 0.99
SOLVED = 195.0


def mlp(outputs):
    """A 4-64-outputs network with a tanh hidden layer."""
    return keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(64, activation="tanh"),
                             keras.layers.Dense(outputs)])


def play(envs, policy):
    """Plays one episode in each env in lockstep; returns a list of (states, actions,
    rewards) arrays, one per episode."""
    states = [env.reset()[0] for env in envs]
    paths = [([], [], []) for _ in envs]
    live = list(range(len(envs)))
    while live:
        logits = policy(np.array([states[i] for i in live], dtype=np.float32))
        actions = tf.random.categorical(logits, 1).numpy()[:, 0]
        still = []
        for i, action in zip(live, actions):
            path = paths[i]
            path[0].append(states[i])
            path[1].append(action)
            states[i], reward, terminated, truncated, _ = envs[i].step(int(action))
            path[2].append(reward)
            if not (terminated or truncated):
                still.append(i)
        live = still
    return [tuple(np.array(part) for part in path) for path in paths]


def discounted_returns(rewards, gamma=GAMMA):
    """G_t = r_t + gamma r_{t+1} + gamma^2 r_{t+2} + ... for one episode."""
    returns = np.empty(len(rewards))
    total = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        total = rewards[t] + gamma * total
        returns[t] = total
    return returns


def make_update(policy, value, optimizer):
    """The training step: one tape for the policy-gradient loss and the baseline's loss."""
    scale = 1.0 - GAMMA  # returns reach 1 / (1 - gamma); the value net predicts G (1 - gamma)

    @tf.function(reduce_retracing=True)  # one trace for batches of every length
    def update(states, actions, returns):
        with tf.GradientTape() as tape:
            baseline = value(states)[:, 0]
            advantage = tf.stop_gradient(returns * scale - baseline)
            advantage = (advantage - tf.reduce_mean(advantage)) / (
                tf.math.reduce_std(advantage) + 1e-8)
            log_probs = tf.nn.log_softmax(policy(states))
            taken = tf.gather(log_probs, actions, batch_dims=1)  # log pi(a_t | s_t)
            policy_loss = -tf.reduce_mean(taken * advantage)
            value_loss = tf.reduce_mean(tf.square(returns * scale - baseline))
            loss = policy_loss + value_loss
        variables = policy.trainable_variables + value.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return policy_loss

    return update


def train(max_episodes=1000, batch=10, seed=0, solved=SOLVED, log=print):
    """Trains until the last 100 episodes average `solved`; returns the list of returns."""
    keras.utils.set_random_seed(seed)  # Keras 3 initializers ignore tf.random.set_seed
    envs = [gym.make("CartPole-v1") for _ in range(batch)]
    for i, env in enumerate(envs):
        env.reset(seed=seed * 1000 + i)  # later resets continue each env's seeded stream
    policy, value = mlp(2), mlp(1)
    update = make_update(policy, value, keras.optimizers.Adam(learning_rate=0.01))
    episode_returns = []
    while len(episode_returns) < max_episodes:
        paths = play(envs, policy)
        states = np.concatenate([p[0] for p in paths]).astype(np.float32)
        actions = np.concatenate([p[1] for p in paths]).astype(np.int32)
        returns = np.concatenate([discounted_returns(p[2]) for p in paths]).astype(np.float32)
        update(states, actions, returns)
        episode_returns += [float(p[2].sum()) for p in paths]
        average = np.mean(episode_returns[-100:])
        if len(episode_returns) % 50 == 0:
            log(f"  episode {len(episode_returns):4d}  average return (last 100) {average:6.1f}")
        if len(episode_returns) >= 100 and average >= solved:
            break
    for env in envs:
        env.close()
    return episode_returns


def main() -> None:
    start = time.perf_counter()
    returns = train()
    seconds = time.perf_counter() - start

    def draw(plt):
        plt.plot(returns, ".", alpha=0.3, label="episode return")
        means = np.convolve(returns, np.ones(100) / 100, mode="valid")  # episodes 100, 101...
        plt.plot(np.arange(99, len(returns)), means, label="mean of the last 100")
        plt.xlabel("episode")
        plt.legend()

    save_plot("reinforce_cartpole.png", draw)
    print(f"({seconds:.1f}s)")
    print(f"average return over the last 100 episodes: {np.mean(returns[-100:]):.1f} "
          f"after {len(returns)} episodes")


if __name__ == "__main__":
    main()
