import { bilingual } from './admin-lang';

/** The review queue's words (kept apart from admin-text.ts, which other pages share). */
const zh = {
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

const en: typeof zh = {
  nav: 'Submissions',
  navCount: (count: number) => ` (${count} waiting for review)`,
  title: 'Review submissions',
  intro: 'Tools that visitors suggested on the site’s “Submit a tool” page. Approve opens the tool form filled in: choose the slug, category and tags and save to add it. Reject takes an optional reason (recorded only; the submitter is not told).',
  empty: 'No submissions waiting for review.',
  submitted: 'Submitted',
  contact: 'Contact',
  approve: 'Approve',
  reject: 'Reject',
  reason: 'Reason for rejecting (optional)',
  approveTitle: (name: string) => `Approve submission: ${name}`,
  approved: 'Approved; the tool is added.',
  rejected: 'Rejected.',
  alreadyReviewed: 'This submission has already been reviewed.',
  noCategory: '(the category no longer exists)',
};

export const SUBMISSION_TEXT = bilingual({ zh, en });
