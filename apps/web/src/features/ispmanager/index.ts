export { IspManagerTab } from './ispmanager-tab.tsx';
