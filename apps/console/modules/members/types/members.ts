export interface MemberView {
  id: string;
  userId: string;
  name: string;
  email: string;
  role: string;
  joinedAt: string;
}

export interface PendingInvitationView {
  id: string;
  email: string;
  role: string;
  expiresAt: string;
}
