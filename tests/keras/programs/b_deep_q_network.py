"""Deep Q-Learning (keras.io/examples/rl/deep_q_network_breakout).

Shortened: a 6x6 "catch" game (a ball falls down a column, the paddle on the bottom row moves
left, stays or moves right; +1 for a catch, -1 for a miss) in place of Atari Breakout with its
wrappers; frames of 6x6x1 instead of 84x84x4, a small convolutional Q-network, a replay
buffer, an epsilon-greedy policy, a target network updated every 40 frames, 12 episodes. The
update is the example's: targets from the target network's predict, tf.GradientTape over the
chosen actions' Q-values, Huber loss.
"""

import numpy as np
import tensorflow as tf

import keras
from keras import layers

# Configuration parameters for the whole setup
seed = 42
gamma = 0.99  # Discount factor for past rewards
epsilon = 1.0  # Epsilon greedy parameter
epsilon_min = 0.1  # Minimum epsilon greedy parameter
epsilon_max = 1.0  # Maximum epsilon greedy parameter
epsilon_interval = epsilon_max - epsilon_min  # Rate at which to reduce chance of random action
batch_size = 8  # Size of batch taken from replay buffer
max_steps_per_episode = 10
max_episodes = 12
keras.utils.set_random_seed(seed)

GRID = 6


class CatchEnv:
    """The ball starts in a random column of the top row and falls one row per step."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def _frame(self):
        frame = np.zeros((GRID, GRID, 1), dtype=np.float32)
        frame[self.ball_row, self.ball_col, 0] = 1.0
        frame[GRID - 1, self.paddle, 0] = 1.0
        return frame

    def reset(self):
        self.ball_row, self.ball_col = 0, int(self.rng.integers(GRID))
        self.paddle = GRID // 2
        return self._frame(), {}

    def step(self, action):
        self.paddle = int(np.clip(self.paddle + action - 1, 0, GRID - 1))
        self.ball_row += 1
        done = self.ball_row == GRID - 1
        reward = (1.0 if self.paddle == self.ball_col else -1.0) if done else 0.0
        return self._frame(), reward, done, False, {}


env = CatchEnv(seed)
num_actions = 3


def create_q_model():
    # Network defined by the Deepmind paper
    return keras.Sequential(
        [
            layers.Input(shape=(GRID, GRID, 1)),
            # Convolutions on the frames on the screen
            layers.Conv2D(8, 3, strides=1, activation="relu"),
            layers.Conv2D(8, 2, strides=2, activation="relu"),
            layers.Flatten(),
            layers.Dense(32, activation="relu"),
            layers.Dense(num_actions, activation="linear"),
        ]
    )


# The first model makes the predictions for Q-values which are used to
# make a action.
model = create_q_model()
# Build a target model for the prediction of future rewards.
# The weights of a target model get updated every 40 frames so that when the
# loss between the Q-values is calculated the target Q-value is stable.
model_target = create_q_model()
print("Parameters:", model.count_params())

optimizer = keras.optimizers.Adam(learning_rate=0.00025, clipnorm=1.0)

# Experience replay buffers
action_history = []
state_history = []
state_next_history = []
rewards_history = []
done_history = []
episode_reward_history = []
running_reward = 0
episode_count = 0
frame_count = 0
# Number of frames to take random action and observe output
epsilon_random_frames = 30
# Number of frames for exploration
epsilon_greedy_frames = 100.0
# Maximum replay length
max_memory_length = 100
# Train the model after 4 actions
update_after_actions = 4
# How often to update the target network
update_target_network = 40
# Using huber loss for stability
loss_function = keras.losses.Huber()

while True:
    observation, _ = env.reset()
    state = np.array(observation)
    episode_reward = 0

    for _timestep in range(1, max_steps_per_episode):
        frame_count += 1

        # Use epsilon-greedy for exploration
        if frame_count < epsilon_random_frames or epsilon > np.random.rand(1)[0]:
            # Take random action
            action = np.random.choice(num_actions)
        else:
            # Predict action Q-values
            # From environment state
            state_tensor = keras.ops.convert_to_tensor(state)
            state_tensor = keras.ops.expand_dims(state_tensor, 0)
            action_probs = model(state_tensor, training=False)
            # Take best action
            action = keras.ops.argmax(action_probs[0]).numpy()

        # Decay probability of taking random action
        epsilon -= epsilon_interval / epsilon_greedy_frames
        epsilon = max(epsilon, epsilon_min)

        # Apply the sampled action in our environment
        state_next, reward, done, _, _ = env.step(action)
        state_next = np.array(state_next)

        episode_reward += reward

        # Save actions and states in replay buffer
        action_history.append(action)
        state_history.append(state)
        state_next_history.append(state_next)
        done_history.append(done)
        rewards_history.append(reward)
        state = state_next

        # Update every fourth frame and once batch size is over 8
        if frame_count % update_after_actions == 0 and len(done_history) > batch_size:
            # Get indices of samples for replay buffers
            indices = np.random.choice(range(len(done_history)), size=batch_size)

            # Using list comprehension to sample from replay buffer
            state_sample = np.array([state_history[i] for i in indices])
            state_next_sample = np.array([state_next_history[i] for i in indices])
            rewards_sample = [rewards_history[i] for i in indices]
            action_sample = [action_history[i] for i in indices]
            done_sample = keras.ops.convert_to_tensor(
                [float(done_history[i]) for i in indices]
            )

            # Build the updated Q-values for the sampled future states
            # Use the target model for stability
            future_rewards = model_target.predict(state_next_sample, verbose=0)
            # Q value = reward + discount factor * expected future reward
            updated_q_values = rewards_sample + gamma * keras.ops.amax(future_rewards, axis=1)

            # If final frame set the last value to -1
            updated_q_values = updated_q_values * (1 - done_sample) - done_sample

            # Create a mask so we only calculate loss on the updated Q-values
            masks = keras.ops.one_hot(action_sample, num_actions)

            with tf.GradientTape() as tape:
                # Train the model on the states and updated Q-values
                q_values = model(state_sample)

                # Apply the masks to the Q-values to get the Q-value for action taken
                q_action = keras.ops.sum(keras.ops.multiply(q_values, masks), axis=1)
                # Calculate loss between new Q-value and old Q-value
                loss = loss_function(updated_q_values, q_action)

            # Backpropagation
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            print(f"frame {frame_count}: loss {float(loss):.6f}")

        if frame_count % update_target_network == 0:
            # update the the target network with new weights
            model_target.set_weights(model.get_weights())
            # Log details
            template = "running reward: {:.2f} at episode {}, frame count {}"
            print(template.format(running_reward, episode_count, frame_count))

        # Limit the state and reward history
        if len(rewards_history) > max_memory_length:
            del rewards_history[:1]
            del state_history[:1]
            del state_next_history[:1]
            del action_history[:1]
            del done_history[:1]

        if done:
            break

    # Update running reward to check condition for solving
    episode_reward_history.append(episode_reward)
    if len(episode_reward_history) > 100:
        del episode_reward_history[:1]
    running_reward = np.mean(episode_reward_history)

    episode_count += 1

    if running_reward > 0.9:  # Condition to consider the task solved
        print(f"Solved at episode {episode_count}!")
        break

    if max_episodes > 0 and episode_count >= max_episodes:  # Maximum number of episodes reached
        print(f"Stopped at episode {episode_count}!")
        break

q_values = model.predict(np.array(state_history[-2:]), verbose=0)
for row in q_values:
    print("Q-values:", " ".join(f"{q:.6f}" for q in row))
