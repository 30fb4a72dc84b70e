import tapeflow as tf

@tf.custom_gradient
def custom_op(x):
    def grad(dy):
        return dy * 2
    return x**2, grad

with tf.GradientTape() as tape:
    x = tf.Variable(3.0)
    y = custom_op(x)

dy_dx = tape.gradient(y, x)
print(f"自定义梯度计算结果: {dy_dx.numpy()}")
