import tapeflow as tf

x = tf.Variable(3.0)

with tf.GradientTape() as tape:
    y = x**2 + 2*x + 1

dy_dx = tape.gradient(y, x)
print(f"y = x^2 + 2x + 1 的梯度为: {dy_dx.numpy()}")
