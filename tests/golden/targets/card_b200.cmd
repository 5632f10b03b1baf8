target b200
