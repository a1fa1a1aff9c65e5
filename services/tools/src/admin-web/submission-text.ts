/** The review queue's words (kept apart from admin-text.ts, which other pages share). */
export const SUBMISSION_TEXT = {
  nav: '投稿',
  navCount: (count: number) => `（${count} 条待审）`,
  title: '投稿审核',
  intro: '访客在网站「提交工具」页推荐的工具。通过：打开预填的工具表单，选好 slug、分类和标签后保存即收录；拒绝：可填写原因（仅记录，不通知投稿人）。',
  empty: '没有待审核的投稿。',
  submitted: '提交时间',
  contact: '联系方式',
  approve: '通过',
  reject: '拒绝',
  reason: '拒绝原因（选填）',
  approveTitle: (name: string) => `通过投稿：${name}`,
  approved: '已通过，工具已收录。',
  rejected: '已拒绝。',
  alreadyReviewed: '这条投稿已被审核过了。',
  noCategory: '（分类已不存在）',
};
