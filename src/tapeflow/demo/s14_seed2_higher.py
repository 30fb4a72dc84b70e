import tapeflow as tf
x = tf.Variable(3.0)
with tf.GradientTape() as g1:
    with tf.GradientTape() as g2:
        y = x**3
    dy_dx = g2.gradient(y, x)
d2y_dx2 = g1.gradient(dy_dx, x)
print(f"一阶导数: {dy_dx.numpy()}, 二阶导数: {d2y_dx2.numpy()}")
