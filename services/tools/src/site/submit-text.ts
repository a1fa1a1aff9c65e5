import type { FieldProblem, SubmissionField } from '../submissions/submission-form';
import type { Lang } from './site-text';

/** The 提交工具 pages' words, in both languages. */
export interface SubmitText {
  link: string;
  title: string;
  intro: string;
  fields: Record<SubmissionField, string>;
  hints: Partial<Record<SubmissionField, string>>;
  optional: string;
  chooseCategory: string;
  honeypot: string;
  send: string;
  hasErrors: (count: number) => string;
  problems: Record<FieldProblem, (label: string) => string>;
  thanksTitle: string;
  thanksText: string;
  another: string;
  tooManyTitle: string;
  tooManyText: (minutes: number) => string;
}

export const SUBMIT_TEXT: Record<Lang, SubmitText> = {
  zh: {
    link: '提交工具',
    title: '提交工具',
    intro: '知道一个好用的工具？告诉我们，编辑审核通过后会收录到导航中。',
    fields: { name: '工具名称', url: '网址', category: '分类', description: '简介', contact: '联系方式' },
    hints: { url: '以 http:// 或 https:// 开头的完整网址', description: '一两句话说明它能做什么（最多 500 字）', contact: '邮箱等，仅编辑可见，方便有问题时联系你' },
    optional: '（选填）',
    chooseCategory: '请选择分类',
    honeypot: '请勿填写此项',
    send: '提交',
    hasErrors: (count) => `表单有 ${count} 处需要修改：`,
    problems: {
      required: (label) => `请填写${label}。`,
      invalid: (label) => `${label}格式不正确。`,
      tooLong: (label) => `${label}太长了。`,
      unknownCategory: () => '请从列表中选择一个分类。',
      duplicate: () => '这个网址已经收录或已有人提交，正在等待审核。',
    },
    thanksTitle: '感谢提交',
    thanksText: '我们已收到你的推荐，编辑审核通过后会出现在导航中。',
    another: '再提交一个',
    tooManyTitle: '提交过于频繁',
    tooManyText: (minutes) => `同一网络每小时最多提交 5 个工具，请约 ${minutes} 分钟后再试。你填写的内容没有保存。`,
  },
  en: {
    link: 'Submit a tool',
    title: 'Submit a tool',
    intro: 'Know a useful tool? Tell us; once an editor has reviewed it, it joins the directory.',
    fields: { name: 'Tool name', url: 'URL', category: 'Category', description: 'Description', contact: 'Contact' },
    hints: { url: 'The full address, starting with http:// or https://', description: 'A sentence or two on what it does (at most 500 characters)', contact: 'An email address or similar, seen only by editors' },
    optional: ' (optional)',
    chooseCategory: 'Choose a category',
    honeypot: 'Leave this empty',
    send: 'Submit',
    hasErrors: (count) => `${count} ${count === 1 ? 'field needs' : 'fields need'} changing:`,
    problems: {
      required: (label) => `Please fill in ${label.toLowerCase()}.`,
      invalid: (label) => `${label} is not valid.`,
      tooLong: (label) => `${label} is too long.`,
      unknownCategory: () => 'Please choose a category from the list.',
      duplicate: () => 'This URL is already in the directory or waiting for review.',
    },
    thanksTitle: 'Thank you',
    thanksText: 'We have received your suggestion; once an editor approves it, it will appear in the directory.',
    another: 'Submit another',
    tooManyTitle: 'Too many submissions',
    tooManyText: (minutes) => `At most 5 tools per hour can be submitted from one network. Please try again in about ${minutes} minutes. What you entered was not saved.`,
  },
};
