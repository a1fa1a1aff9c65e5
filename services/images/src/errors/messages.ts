/** Every envelope message the service sends; openapi.yaml lists the same set. */
export const Messages = {
  ok: '成功',
  uploaded: '上传成功',
  deleted: '删除成功',
  restored: '恢复成功',
  purged: '已彻底删除',
  categoryCreated: '分类创建成功',
  notLoggedIn: '请先登录',
  fileTooLarge: '文件大小超出限制',
  quotaExceeded: '存储空间不足',
  unsupportedType: '不支持的文件类型',
  noFile: '请选择要上传的文件',
  badParameter: '参数错误',
  categoryNotFound: '分类不存在',
  categoryExists: '分类已存在',
  imageNotFound: '图片不存在',
  unknownAction: '不支持的操作',
  tooManyPixels: '图片尺寸超出限制',
  corruptImage: '图片文件已损坏',
  malformedRequest: '请求格式错误',
  idempotencyInProgress: '相同的请求正在处理中',
  storageFull: '服务器存储空间不足，请稍后重试',
  internalError: '服务器内部错误',
} as const;

export type Message = (typeof Messages)[keyof typeof Messages];
