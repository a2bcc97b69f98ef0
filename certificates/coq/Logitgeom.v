(** * Logitgeom: the geometry of classifier heads, for machine-checked certificates.

    The definitions a referee reads (section [Definitions]) say what the claims of the
    exported files mean: logits of a head [W x + b] over the rationals, the sign pattern and
    the ranking of a head at an input, "label k is the strict argmax", the cosine of two
    rows and the softmax over Coq's real numbers, the chirotope (signs of maximal minors).
    The rest proves, once, that small boolean checkers are sound; an exported file applies a
    checker to a certificate's data and runs it with [vm_compute].  No [Admitted], no axiom
    beyond those of the standard library's real numbers ([Print Assumptions] in the tests).

    Conventions: labels are 0-based ([nat]); a vector is a list of rationals; a matrix
    a list of rows; an input [x] is any list of rationals ([dot] ignores entries beyond
    a row's length and counts missing ones as 0, so this is exactly Q^d); a missing bias
    ([b = []]) is the bias 0.  See docs/coq.md. *)

From Coq Require Import ZArith QArith Qabs Qreduction List Bool Psatz Reals Qreals.
From Coq Require Uint63 Sint63.
Import ListNotations.

(* ================================================================== Definitions *)

Open Scope Q_scope.

Definition vec := list Q.
Definition mat := list vec.

(** Long numbers are written in base 2^62 with Coq's primitive 63-bit integers (fast to
    read): [Ql s p q] is the rational (-1)^s p / q, [p] and [q] given by their digits in
    base 2^62, least significant first.  Short ones are written [(p # q)]. *)
Fixpoint limbs (l : list Uint63.int) : Z :=
  match l with [] => 0%Z | n :: l' => (Uint63.to_Z n + Z.shiftl (limbs l') 62)%Z end.
Definition Ql (s : bool) (p q : list Uint63.int) : Q :=
  Qmake (if s then Z.opp (limbs p) else limbs p) (Z.to_pos (limbs q)).
(** A row of numerators over one denominator: [Qrow d ns] is the vector of n / d for the
    63-bit signed integers n of [ns] ([d] in base 2^62 as for [Ql]).  Generated files write
    [[d0; d1]%uint63] and [[n1; n2]%sint63] (after Import Uint63 Sint63). *)
Definition Qrow (d : list Uint63.int) (ns : list Uint63.int) : vec :=
  let D := Z.to_pos (limbs d) in map (fun n => Qmake (Sint63.to_Z n) D) ns.

Fixpoint dot (u x : vec) : Q :=
  match u, x with
  | a :: u', c :: x' => a * c + dot u' x'
  | _, _ => 0
  end.

Definition row (W : mat) (i : nat) : vec := nth i W [].

(** The logit of label [i] at input [x]: w_i . x + b_i. *)
Definition logit (W : mat) (b : vec) (i : nat) (x : vec) : Q := dot (row W i) x + nth i b 0.

Definition qsign (q : Q) : Z := match Qcompare q 0 with Lt => -1 | Eq => 0 | Gt => 1 end%Z.

Fixpoint veqb (u v : vec) : bool :=
  match u, v with
  | [], [] => true
  | a :: u', c :: v' => Qeq_bool a c && veqb u' v'
  | _, _ => false
  end.

(** Row [i] of the affine head is identically zero (w_i = 0 and b_i = 0). *)
Definition zero_rowb (W : mat) (b : vec) (i : nat) : bool :=
  forallb (fun a => Qeq_bool a 0) (row W i) && Qeq_bool (nth i b 0) 0.

(** The sign vector of the head at [x]. *)
Definition signs_at (W : mat) (b : vec) (x : vec) : list Z :=
  map (fun i => qsign (logit W b i x)) (seq 0 (length W)).

(** [x] lies on no hyperplane (identically zero rows are no hyperplanes). *)
Definition generic (W : mat) (b : vec) (x : vec) : Prop :=
  forall i, (i < length W)%nat -> zero_rowb W b i = false -> ~ logit W b i x == 0.

(** [s] is in S(W): the sign vector of a full-dimensional region (a tope). *)
Definition sign_pattern (W : mat) (b : vec) (s : list Z) : Prop :=
  exists x, generic W b x /\ signs_at W b x = s.

(** Labels [a] and [c] are tied: equal rows and equal biases. *)
Definition tiedb (W : mat) (b : vec) (a c : nat) : bool :=
  veqb (row W a) (row W c) && Qeq_bool (nth a b 0) (nth c b 0).

(** At [x], label [a] comes before label [c]: a larger logit, or tied with a < c. *)
Definition before (W : mat) (b : vec) (x : vec) (a c : nat) : Prop :=
  logit W b c x < logit W b a x \/ ((a < c)%nat /\ tiedb W b a c = true).

Fixpoint chain (W : mat) (b : vec) (x : vec) (pi : list nat) : Prop :=
  match pi with
  | a :: ((c :: _) as rest) => before W b x a c /\ chain W b x rest
  | _ => True
  end.

(** At [x], the head ranks the labels of [pi] first, in this order, ahead of every other
    label: [pi] is the ranking at [x] (all labels) or its top-t prefix. *)
Definition ranks (W : mat) (b : vec) (pi : list nat) (x : vec) : Prop :=
  NoDup pi /\ Forall (fun a => (a < length W)%nat) pi /\ pi <> [] /\ chain W b x pi /\
  forall j, (j < length W)%nat -> ~ In j pi -> before W b x (last pi O) j.

(** [pi] is in R(W) (a full ranking), or a feasible top-t prefix. *)
Definition ranking (W : mat) (b : vec) (pi : list nat) : Prop := exists x, ranks W b pi x.

(** Label [k] (one of the head's labels, [k < length W]) is the strict argmax at [x]. *)
Definition strict_argmax (W : mat) (b : vec) (k : nat) (x : vec) : Prop :=
  (k < length W)%nat /\ forall i, (i < length W)%nat -> i <> k -> logit W b i x < logit W b k x.

(** Label [k] can be ranked first: some input ranks a list of labels holding [k], each
    tied with [k] (its tie class, or part of it), ahead of every other label. *)
Definition can_be_first (W : mat) (b : vec) (k : nat) : Prop :=
  exists pi, In k pi /\ (forall a, In a pi -> tiedb W b k a = true) /\ ranking W b pi.

Definition in_box (R : Q) (x : vec) : Prop := Forall (fun c => Qabs c <= R) x.

(** Complete lists of patterns. *)
Definition all_sign_patterns (W : mat) (b : vec) (L : list (list Z)) : Prop :=
  forall s, sign_pattern W b s <-> In s L.

Definition all_rankings (W : mat) (b : vec) (L : list (list nat)) : Prop :=
  forall pi, length pi = length W -> (ranking W b pi <-> In pi L).

(** [L] lists exactly the top-t prefixes some input ranks first, ahead of every other label. *)
Definition all_top_rankings (W : mat) (b : vec) (t : nat) (L : list (list nat)) : Prop :=
  forall pi, length pi = t -> (ranking W b pi <-> In pi L).

(** Every row of [W] has length exactly 1 (App. C.3). *)
Definition unit_rows (W : mat) : Prop := Forall (fun r => dot r r == 1) W.

(** Gram matrix M M^T; the difference rows B M (pairs a < c, lexicographic). *)
Definition gram (M : mat) : mat := map (fun r => map (fun r' => dot r r') M) M.

(** Subtraction that keeps a common denominator (as [qadd]). *)
Definition qsub (a c : Q) : Q :=
  if Pos.eqb (Qden a) (Qden c) then Qmake (Qnum a - Qnum c) (Qden a) else a - c.

Fixpoint vsub (u v : vec) : vec :=
  match u, v with
  | a :: u', c :: v' => qsub a c :: vsub u' v'
  | [], _ => map Qopp v
  | _, [] => u
  end.

Definition pairs (k : nat) : list (nat * nat) :=
  flat_map (fun a => map (fun c => (a, c)) (seq (S a) (k - S a))) (seq 0 k).

Definition diffs (W : mat) : mat := map (fun '(a, c) => vsub (row W a) (row W c)) (pairs (length W)).

Fixpoint position (a : nat) (pi : list nat) : nat :=
  match pi with [] => O | c :: pi' => if Nat.eqb a c then O else S (position a pi') end.

(** The sign vector of B W (no bias) at any input ranking the labels as [pi]. *)
Definition pair_signs (W : mat) (pi : list nat) : list Z :=
  map (fun '(a, c) => if tiedb W [] a c then 0%Z
                      else if Nat.ltb (position a pi) (position c pi) then 1%Z else (-1)%Z)
      (pairs (length W)).

(** Determinants (Laplace expansion along the first row) and the chirotope. *)
Fixpoint remove_at (j : nat) (l : vec) : vec :=
  match l, j with
  | [], _ => []
  | _ :: t, O => t
  | h :: t, S j' => h :: remove_at j' t
  end.

Fixpoint detn (n : nat) (M : mat) : Q :=
  match n, M with
  | S n', r :: rs =>
      (fix go (j : nat) (r : vec) : Q :=
         match r with
         | [] => 0
         | a :: r' => (if Nat.even j then a else - a) * detn n' (map (remove_at j) rs)
                      + go (S j) r'
         end) O r
  | _, _ => 1
  end.

Definition det (M : mat) : Q := detn (length M) M.

Fixpoint subsets (d : nat) (l : list nat) : list (list nat) :=
  match d, l with
  | O, _ => [[]]
  | S _, [] => []
  | S d', a :: l' => map (cons a) (subsets d' l') ++ subsets d l'
  end.

(** The chirotope of a k x d matrix: signs of its d x d minors, row subsets in
    lexicographic order. *)
Definition chirotope (W : mat) (d : nat) : list Z :=
  map (fun S => qsign (det (map (row W) S))) (subsets d (seq 0 (length W))).

Close Scope Q_scope.
Open Scope R_scope.

(** Real logits and the softmax. *)
Fixpoint dotR (u : vec) (h : list R) : R :=
  match u, h with
  | a :: u', c :: h' => Q2R a * c + dotR u' h'
  | _, _ => 0
  end.

Definition logitsR (W : mat) (h : list R) : list R := map (fun w => dotR w h) W.

Definition sumR (l : list R) : R := fold_right Rplus 0 l.

Definition softmax (z : list R) : list R := map (fun zi => exp zi / sumR (map exp z)) z.

(** The cosine of two rational vectors. *)
Definition cosine (u v : vec) : R :=
  Q2R (dot u v) / (sqrt (Q2R (dot u u)) * sqrt (Q2R (dot v v))).

Close Scope R_scope.
Open Scope Q_scope.

(* ============================================================ General lemmas *)

Lemma Qeq_bool_true : forall a c, Qeq_bool a c = true <-> a == c.
Proof. intros; apply Qeq_bool_iff. Qed.

Lemma veqb_dot : forall u v x, veqb u v = true -> dot u x == dot v x.
Proof.
  induction u as [|a u IH]; destruct v as [|c v]; simpl; try discriminate; intros x H.
  - reflexivity.
  - apply andb_true_iff in H as [H1 H2]. apply Qeq_bool_true in H1.
    destruct x as [|e x]; [reflexivity|]. rewrite H1, (IH v x H2). reflexivity.
Qed.

Lemma veqb_length : forall u v, veqb u v = true -> length u = length v.
Proof.
  induction u as [|a u IH]; destruct v; simpl; try discriminate; auto.
  intros H; apply andb_true_iff in H as [_ H]; f_equal; auto.
Qed.

Lemma qsub_correct : forall a c, qsub a c == a - c.
Proof.
  intros [n1 d1] [n2 d2]. unfold qsub. simpl. destruct (Pos.eqb_spec d1 d2) as [<-|]; [|reflexivity].
  unfold Qeq, Qminus, Qplus. simpl. rewrite Pos2Z.inj_mul. ring.
Qed.

Lemma dot_vsub : forall u v x, dot (vsub u v) x == dot u x - dot v x.
Proof.
  induction u as [|a u IH]; destruct v as [|c v]; destruct x as [|e x]; simpl; try ring.
  - assert (H : forall v x, dot (map Qopp v) x == - dot v x).
    { induction v0 as [|f v0 IHv]; destruct x0; simpl; try ring. rewrite IHv; ring. }
    rewrite H. ring.
  - rewrite IH, qsub_correct. ring.
Qed.

Lemma dot_nil_r : forall u, dot u [] == 0.
Proof. destruct u; reflexivity. Qed.

(** ** Gordan's alternative, in the form of the certificates *)

(** A constraint (a, c) means a . x + c > 0. *)
Definition holds (x : vec) (r : vec * Q) : Prop := 0 < dot (fst r) x + snd r.

(** Addition that keeps a common denominator (no gcd): the checkers' sums of rows written
    over one denominator stay over it, however long their numerators grow. *)
Definition qadd (a c : Q) : Q :=
  if Pos.eqb (Qden a) (Qden c) then Qmake (Qnum a + Qnum c) (Qden a) else a + c.

Lemma qadd_correct : forall a c, qadd a c == a + c.
Proof.
  intros [n1 d1] [n2 d2]. unfold qadd. simpl. destruct (Pos.eqb_spec d1 d2) as [<-|]; [|reflexivity].
  unfold Qeq, Qplus. simpl. rewrite Pos2Z.inj_mul. ring.
Qed.

Fixpoint vadd (u v : vec) : vec :=
  match u, v with
  | a :: u', c :: v' => qadd a c :: vadd u' v'
  | [], _ => v
  | _, [] => u
  end.

Definition vscale (t : Q) (u : vec) : vec := map (fun a => a * t) u.

Fixpoint combine_rows (ys : vec) (rs : list (vec * Q)) : vec * Q :=
  match ys, rs with
  | y :: ys', (a, c) :: rs' =>
      let (A, C) := combine_rows ys' rs' in (vadd (vscale y a) A, qadd (c * y) C)
  | _, _ => ([], 0)
  end.

Lemma dot_vadd : forall u v x, dot (vadd u v) x == dot u x + dot v x.
Proof.
  induction u as [|a u IH]; destruct v as [|c v]; destruct x as [|e x]; simpl; try ring.
  rewrite IH, qadd_correct. ring.
Qed.

Lemma dot_vscale : forall t u x, dot (vscale t u) x == t * dot u x.
Proof.
  induction u as [|a u IH]; destruct x as [|e x]; simpl; try ring.
  rewrite IH. ring.
Qed.

Fixpoint weighted (ys : vec) (vals : list Q) : Q :=
  match ys, vals with
  | y :: ys', v :: vals' => y * v + weighted ys' vals'
  | _, _ => 0
  end.

Lemma combine_rows_eval : forall ys rs x,
  dot (fst (combine_rows ys rs)) x + snd (combine_rows ys rs)
  == weighted ys (map (fun r => dot (fst r) x + snd r) rs).
Proof.
  induction ys as [|y ys IH]; destruct rs as [|[a c] rs]; intros x; simpl; try ring.
  specialize (IH rs x). destruct (combine_rows ys rs) as [A C]. simpl in *.
  rewrite dot_vadd, dot_vscale, qadd_correct, <- IH. ring.
Qed.

Lemma weighted_nonneg : forall ys vals,
  Forall (fun y => 0 <= y) ys -> Forall (fun v => 0 < v) vals -> 0 <= weighted ys vals.
Proof.
  induction ys as [|y ys IH]; destruct vals as [|v vals]; simpl; intros Hy Hv; try lra.
  inversion Hy; inversion Hv; subst. specialize (IH vals H2 H6). nra.
Qed.

Lemma weighted_pos : forall ys vals,
  length ys = length vals -> Forall (fun y => 0 <= y) ys -> Forall (fun v => 0 < v) vals ->
  existsb (fun y => negb (Qle_bool y 0)) ys = true -> 0 < weighted ys vals.
Proof.
  induction ys as [|y ys IH]; destruct vals as [|v vals]; simpl; try discriminate;
    intros Hl Hy Hv Hex.
  inversion Hy; inversion Hv; subst.
  pose proof (weighted_nonneg ys vals H2 H6).
  apply orb_true_iff in Hex as [Hex|Hex].
  - apply negb_true_iff in Hex. assert (0 < y).
    { apply Qnot_le_lt. intro Hle. apply Qle_bool_iff in Hle. congruence. }
    nra.
  - specialize (IH vals (eq_add_S _ _ Hl) H2 H6 Hex). nra.
Qed.

(** The boolean Gordan check: y >= 0, some y_i > 0, sum y_i a_i = 0, sum y_i c_i <= 0. *)
Definition gordan_ok (ys : vec) (rs : list (vec * Q)) : bool :=
  Nat.eqb (length ys) (length rs) && forallb (fun y => Qle_bool 0 y) ys
  && existsb (fun y => negb (Qle_bool y 0)) ys
  && forallb (fun a => Qeq_bool a 0) (fst (combine_rows ys rs))
  && Qle_bool (snd (combine_rows ys rs)) 0.

Lemma dot_zero : forall u x, forallb (fun a => Qeq_bool a 0) u = true -> dot u x == 0.
Proof.
  induction u as [|a u IH]; destruct x; simpl; intros H; try reflexivity.
  apply andb_true_iff in H as [H1 H2]. apply Qeq_bool_true in H1. rewrite H1, IH; auto. ring.
Qed.

Lemma forallb_Forall : forall {A} (f : A -> bool) (P : A -> Prop) l,
  (forall a, f a = true -> P a) -> forallb f l = true -> Forall P l.
Proof.
  intros A f P l Hf H. apply Forall_forall. intros a Ha.
  apply Hf. eapply forallb_forall in H; eauto.
Qed.

(** Gordan: such multipliers leave no input satisfying every constraint. *)
Theorem gordan_sound : forall ys rs, gordan_ok ys rs = true -> ~ exists x, Forall (holds x) rs.
Proof.
  intros ys rs H [x Hx]. unfold gordan_ok in H.
  repeat rewrite andb_true_iff in H. destruct H as [[[[Hl Hy] Hex] Hz] Hc].
  apply Nat.eqb_eq in Hl. apply Qle_bool_iff in Hc.
  pose proof (combine_rows_eval ys rs x) as E. rewrite (dot_zero _ x Hz), Qplus_0_l in E.
  assert (0 < weighted ys (map (fun r => dot (fst r) x + snd r) rs)).
  { apply weighted_pos; auto.
    - rewrite map_length; auto.
    - eapply forallb_Forall; [|exact Hy]. intros a Ha; apply Qle_bool_iff; auto.
    - apply Forall_map. eapply Forall_impl; [|exact Hx]. intros r Hr; exact Hr. }
  rewrite <- E in H. apply (Qlt_not_le _ _ H Hc).
Qed.

(** The box form: also sum y_i c_i + R |sum y_i a_i|_1 <= 0 leaves no input with
    max_j |x_j| <= R. *)
Fixpoint norm1 (u : vec) : Q := match u with [] => 0 | a :: u' => Qabs a + norm1 u' end.

Lemma norm1_nonneg : forall u, 0 <= norm1 u.
Proof.
  induction u as [|a u IH]; simpl; [apply Qle_refl|].
  apply (Qplus_le_compat 0 _ 0 _); [apply Qabs_nonneg|exact IH].
Qed.

Lemma dot_box : forall R u x, 0 <= R -> in_box R x -> dot u x <= R * norm1 u.
Proof.
  intros R; induction u as [|a u IH]; destruct x as [|e x]; simpl; intros HR Hx.
  - rewrite Qmult_0_r; apply Qle_refl.
  - rewrite Qmult_0_r; apply Qle_refl.
  - apply Qmult_le_0_compat; [exact HR|].
    apply (Qplus_le_compat 0 _ 0 _); [apply Qabs_nonneg|apply norm1_nonneg].
  - inversion Hx as [|? ? H0 H1]; subst.
    assert (Hae : a * e <= Qabs a * R).
    { apply Qle_trans with (Qabs (a * e)); [apply Qle_Qabs|]. rewrite Qabs_Qmult.
      pose proof (Qabs_nonneg a). pose proof (Qabs_nonneg e). nra. }
    specialize (IH x HR H1). lra.
Qed.

Definition gordan_box_ok (ys : vec) (rs : list (vec * Q)) (R : Q) : bool :=
  Nat.eqb (length ys) (length rs) && Qle_bool 0 R && forallb (fun y => Qle_bool 0 y) ys
  && existsb (fun y => negb (Qle_bool y 0)) ys
  && Qle_bool (snd (combine_rows ys rs) + R * norm1 (fst (combine_rows ys rs))) 0.

(** Gordan in the box max_j |x_j| <= R (Hoelder). *)
Theorem gordan_box_sound : forall ys rs R,
  gordan_box_ok ys rs R = true -> ~ exists x, in_box R x /\ Forall (holds x) rs.
Proof.
  intros ys rs R H [x [Hb Hx]]. unfold gordan_box_ok in H.
  repeat rewrite andb_true_iff in H. destruct H as [[[[Hl HR] Hy] Hex] Hc].
  apply Nat.eqb_eq in Hl. apply Qle_bool_iff in Hc. apply Qle_bool_iff in HR.
  pose proof (combine_rows_eval ys rs x) as E.
  pose proof (dot_box R (fst (combine_rows ys rs)) x HR Hb) as Hd.
  assert (0 < weighted ys (map (fun r => dot (fst r) x + snd r) rs)).
  { apply weighted_pos; auto.
    - rewrite map_length; auto.
    - eapply forallb_Forall; [|exact Hy]. intros a Ha; apply Qle_bool_iff; auto.
    - apply Forall_map. eapply Forall_impl; [|exact Hx]. intros r Hr; exact Hr. }
  rewrite <- E in H. lra.
Qed.

(* ================================================================ Checkers *)

Lemma nth_map_seq : forall {A} (f : nat -> A) n i d, (i < n)%nat -> nth i (map f (seq 0 n)) d = f i.
Proof.
  intros A f n i d Hi. rewrite nth_indep with (d' := f O) by (rewrite map_length, seq_length; auto).
  rewrite map_nth, seq_nth; auto.
Qed.

Lemma qsign_cases : forall q,
  (qsign q = 1%Z /\ 0 < q) \/ (qsign q = 0%Z /\ q == 0) \/ (qsign q = (-1)%Z /\ q < 0).
Proof.
  intros q. unfold qsign. destruct (Qcompare_spec q 0); auto.
Qed.

(** A boolean equality read off a decision [dec] reflects [=], and membership by a boolean
    equality that reflects [=] is [In]: proven once for every type, used below for sign
    vectors ([zleqb], [zmem]) and rankings ([nleqb], [nmem]), whose definitions (the functions
    the generated proofs compute with) stay as they are. *)
Lemma dec_eqb_iff : forall {B} (dec : forall a c : B, {a = c} + {a <> c}) a c,
  (if dec a c then true else false) = true <-> a = c.
Proof.
  intros B dec a c. destruct (dec a c) as [E|E]; split; intro H;
    [exact E|reflexivity|discriminate|contradiction].
Qed.

Lemma existsb_eqb_In : forall {B} (eqb : B -> B -> bool),
  (forall a c, eqb a c = true <-> a = c) -> forall s L, existsb (eqb s) L = true <-> In s L.
Proof.
  intros B eqb Heq s L. rewrite existsb_exists. split.
  - intros [t [Ht E]]. apply Heq in E. subst t. exact Ht.
  - intros H. exists s. split; [exact H|]. apply Heq. reflexivity.
Qed.

Definition zleqb (s t : list Z) : bool := if list_eq_dec Z.eq_dec s t then true else false.
Definition zmem (s : list Z) (L : list (list Z)) : bool := existsb (zleqb s) L.
Definition nleqb (s t : list nat) : bool := if list_eq_dec Nat.eq_dec s t then true else false.
Definition nmem (s : list nat) (L : list (list nat)) : bool := existsb (nleqb s) L.

Lemma zleqb_iff : forall s t, zleqb s t = true <-> s = t.
Proof. exact (dec_eqb_iff (list_eq_dec Z.eq_dec)). Qed.

Lemma nleqb_iff : forall s t, nleqb s t = true <-> s = t.
Proof. exact (dec_eqb_iff (list_eq_dec Nat.eq_dec)). Qed.

Lemma zmem_In : forall s L, zmem s L = true <-> In s L.
Proof. exact (existsb_eqb_In zleqb zleqb_iff). Qed.

Lemma nmem_In : forall s L, nmem s L = true <-> In s L.
Proof. exact (existsb_eqb_In nleqb nleqb_iff). Qed.

(** ** Counts of listed data: no element twice, and set equality of label lists *)

Fixpoint nodup_by {A} (eqb : A -> A -> bool) (l : list A) : bool :=
  match l with [] => true | a :: r => negb (existsb (eqb a) r) && nodup_by eqb r end.

Lemma nodup_by_sound : forall {A} (eqb : A -> A -> bool),
  (forall a c, eqb a c = true <-> a = c) -> forall l, nodup_by eqb l = true -> NoDup l.
Proof.
  intros A eqb Heq l. induction l as [|a r IH]; simpl; intros H.
  - constructor.
  - apply andb_true_iff in H as [H1 H2]. constructor; [|exact (IH H2)].
    intro Hin. apply negb_true_iff in H1.
    assert (existsb (eqb a) r = true) as E by exact (proj2 (existsb_eqb_In eqb Heq a r) Hin).
    rewrite E in H1. discriminate.
Qed.

(** A list of sign vectors / of rankings / of labels without repetition. *)
Theorem zlists_nodup : forall L, nodup_by zleqb L = true -> NoDup L.
Proof. exact (nodup_by_sound zleqb zleqb_iff). Qed.

Theorem nlists_nodup : forall L, nodup_by nleqb L = true -> NoDup L.
Proof. exact (nodup_by_sound nleqb nleqb_iff). Qed.

Theorem nats_nodup : forall L, nodup_by Nat.eqb L = true -> NoDup L.
Proof. exact (nodup_by_sound Nat.eqb Nat.eqb_eq). Qed.

(** Two lists of labels hold the same labels. *)
Definition nsame (A B : list nat) : bool :=
  forallb (fun a => existsb (Nat.eqb a) B) A && forallb (fun a => existsb (Nat.eqb a) A) B.

(** ** Sign patterns: witnesses, Gordan, complete lists *)

Definition sign_witness_ok (W : mat) (b : vec) (s : list Z) (x : vec) : bool :=
  zleqb (signs_at W b x) s
  && forallb (fun i => zero_rowb W b i || negb (Qeq_bool (logit W b i x) 0)) (seq 0 (length W)).

Theorem sign_witness_sound : forall W b s x, sign_witness_ok W b s x = true -> sign_pattern W b s.
Proof.
  intros W b s x H. apply andb_true_iff in H as [H1 H2]. exists x. split.
  - intros i Hi Hz. pose proof (proj1 (forallb_forall _ _) H2 i) as H3.
    assert (Hs : In i (seq 0 (length W))) by (apply in_seq; lia). specialize (H3 Hs). clear H2.
    rename H3 into H2. cbv beta in H2.
    rewrite Hz in H2. simpl in H2. intro E. apply Qeq_bool_true in E. rewrite E in H2.
    discriminate.
  - apply zleqb_iff in H1; auto.
Qed.

Definition sign_rows (W : mat) (b : vec) (s : list Z) : list (vec * Q) :=
  flat_map (fun i => let si := nth i s 0%Z in
                     if Z.eqb si 0 then [] else [(vscale (inject_Z si) (row W i), inject_Z si * nth i b 0)])
           (seq 0 (length W)).

(** The rows of [t] hold at [x] if [t] keeps some signs of [x] and puts 0 for the others. *)
Lemma sign_rows_sub : forall W b s t x, signs_at W b x = s ->
  (forall i, nth i t 0%Z = 0%Z \/ nth i t 0%Z = nth i s 0%Z) -> Forall (holds x) (sign_rows W b t).
Proof.
  intros W b s t x Hs Ht. apply Forall_forall. intros r Hr. unfold sign_rows in Hr.
  apply in_flat_map in Hr as [i [Hi Hr]]. apply in_seq in Hi. cbv zeta in Hr.
  assert (E : nth i s 0%Z = qsign (logit W b i x)).
  { subst s. unfold signs_at. apply (nth_map_seq (fun i => qsign (logit W b i x))). lia. }
  destruct (Ht i) as [T|T]; rewrite T in Hr; [simpl in Hr; destruct Hr|]. rewrite E in Hr.
  destruct (Z.eqb (qsign (logit W b i x)) 0) eqn:Z0; [destruct Hr|].
  apply Z.eqb_neq in Z0.
  destruct Hr as [Hr|[]]. subst r. unfold holds. simpl. rewrite dot_vscale.
  destruct (qsign_cases (logit W b i x)) as [[S P]|[[S P]|[S P]]]; rewrite S in *;
    unfold logit in *.
  - setoid_replace (inject_Z 1) with 1 by reflexivity. lra.
  - contradiction.
  - setoid_replace (inject_Z (-1)) with (-1) by reflexivity. lra.
Qed.

Lemma sign_rows_hold : forall W b s x, signs_at W b x = s -> Forall (holds x) (sign_rows W b s).
Proof. intros W b s x Hs. apply (sign_rows_sub W b s s x Hs). intros i. right. reflexivity. Qed.

Theorem sign_never_sound : forall W b s ys,
  gordan_ok ys (sign_rows W b s) = true -> ~ sign_pattern W b s.
Proof.
  intros W b s ys H [x [_ Hx]]. apply (gordan_sound _ _ H). exists x.
  apply sign_rows_hold; auto.
Qed.

Fixpoint choices (l : list (list Z)) : list (list Z) :=
  match l with [] => [[]] | o :: l' => flat_map (fun c => map (cons c) (choices l')) o end.

Lemma in_choices : forall s l, Forall2 (fun c o => In c o) s l -> In s (choices l).
Proof.
  intros s l H. induction H; simpl; auto.
  apply in_flat_map. exists x. split; auto. apply in_map; auto.
Qed.

Lemma Forall2_map_seq : forall {A B} (P : A -> B -> Prop) f g n,
  (forall i, (i < n)%nat -> P (f i) (g i)) -> Forall2 P (map f (seq 0 n)) (map g (seq 0 n)).
Proof.
  intros A B P f g n H.
  assert (G : forall n m, (forall i, (m <= i < m + n)%nat -> P (f i) (g i)) ->
    Forall2 P (map f (seq m n)) (map g (seq m n))).
  { clear n H. induction n as [|n IH]; intros m Hm; simpl; constructor; [apply Hm; lia|].
    apply IH. intros i Hi; apply Hm; lia. }
  apply G. intros i Hi. apply H. lia.
Qed.

Definition sign_candidates (W : mat) (b : vec) : list (list Z) :=
  choices (map (fun i => if zero_rowb W b i then [0%Z] else [1%Z; (-1)%Z]) (seq 0 (length W))).

(** At a generic [x], the sign of row [i] is one of its choices (for the candidates here and
    for the prefix tree's [sign_opts_path]). *)
Lemma sign_choice : forall W b x i, generic W b x -> (i < length W)%nat ->
  In (qsign (logit W b i x)) (if zero_rowb W b i then [0%Z] else [1%Z; (-1)%Z]).
Proof.
  intros W b x i Hg Hi. destruct (zero_rowb W b i) eqn:Z.
  - unfold zero_rowb in Z. apply andb_true_iff in Z as [Z1 Z2]. apply Qeq_bool_true in Z2.
    left. unfold logit, qsign. rewrite (dot_zero _ x Z1), Z2. reflexivity.
  - specialize (Hg i Hi Z).
    destruct (qsign_cases (logit W b i x)) as [[S _]|[[_ P]|[S _]]]; rewrite ?S; simpl; auto.
    all: contradiction.
Qed.

Lemma sign_pattern_candidate : forall W b s, sign_pattern W b s -> In s (sign_candidates W b).
Proof.
  intros W b s [x [Hg Hs]]. subst s. apply in_choices. unfold signs_at.
  apply Forall2_map_seq. intros i Hi. exact (sign_choice W b x i Hg Hi).
Qed.

(** Walk the candidates: each is listed, or refuted by the next certificate. *)
Fixpoint cover {A} (memb : A -> bool) (refute : A -> vec -> bool) (cands : list A)
    (certs : list vec) : bool :=
  match cands with
  | [] => true
  | c :: cs => if memb c then cover memb refute cs certs
               else match certs with
                    | [] => false
                    | y :: certs' => refute c y && cover memb refute cs certs'
                    end
  end.

Lemma cover_sound : forall {A} memb refute (cands : list A) certs,
  cover memb refute cands certs = true ->
  forall c, In c cands -> memb c = true \/ exists y, refute c y = true.
Proof.
  intros A memb refute cands. induction cands as [|c0 cs IH]; intros certs H c Hc; [destruct Hc|].
  simpl in H. destruct Hc as [<-|Hc].
  - destruct (memb c0); auto. destruct certs as [|y certs]; [discriminate|].
    apply andb_true_iff in H as [H1 _]. right; eauto.
  - destruct (memb c0); [eapply IH; eauto|]. destruct certs as [|y certs]; [discriminate|].
    apply andb_true_iff in H as [_ H2]. eapply IH; eauto.
Qed.

Definition complete_sign_ok (W : mat) (b : vec) (pats : list (list Z * vec)) (certs : list vec) :=
  forallb (fun p => sign_witness_ok W b (fst p) (snd p)) pats
  && cover (fun s => zmem s (map fst pats)) (fun s y => gordan_ok y (sign_rows W b s))
           (sign_candidates W b) certs.

Theorem complete_sign_sound : forall W b pats certs,
  complete_sign_ok W b pats certs = true -> all_sign_patterns W b (map fst pats).
Proof.
  intros W b pats certs H s. apply andb_true_iff in H as [H1 H2]. split.
  - intros Hs. destruct (cover_sound _ _ _ _ H2 s (sign_pattern_candidate _ _ _ Hs))
      as [M|[y R]]; [apply zmem_In; auto|].
    exfalso. exact (sign_never_sound _ _ _ _ R Hs).
  - intros Hin. apply in_map_iff in Hin as [[s' x] [E Hin]]. simpl in E. subst s'.
    eapply forallb_forall in H1; [|exact Hin]. exact (sign_witness_sound _ _ _ _ H1).
Qed.

(** ** Rankings: witnesses, Gordan, complete lists *)

Definition Qltb (p q : Q) : bool := negb (Qle_bool q p).

Lemma Qltb_true : forall p q, Qltb p q = true -> p < q.
Proof.
  intros p q H. apply negb_true_iff in H. apply Qnot_le_lt. intro L.
  apply Qle_bool_iff in L. congruence.
Qed.

Definition beforeb (W : mat) (b : vec) (x : vec) (a c : nat) : bool :=
  Qltb (logit W b c x) (logit W b a x) || (Nat.ltb a c && tiedb W b a c).

Lemma beforeb_sound : forall W b x a c, beforeb W b x a c = true -> before W b x a c.
Proof.
  intros W b x a c H. apply orb_true_iff in H as [H|H]; [left; apply Qltb_true; auto|].
  apply andb_true_iff in H as [H1 H2]. right. split; auto. apply Nat.ltb_lt; auto.
Qed.

Fixpoint chainb (W : mat) (b : vec) (x : vec) (pi : list nat) : bool :=
  match pi with
  | a :: ((c :: _) as rest) => beforeb W b x a c && chainb W b x rest
  | _ => true
  end.

Fixpoint nodupb (l : list nat) : bool :=
  match l with [] => true | a :: l' => negb (existsb (Nat.eqb a) l') && nodupb l' end.

Lemma existsb_eqb : forall a l, existsb (Nat.eqb a) l = true <-> In a l.
Proof.
  intros a l. rewrite existsb_exists. split.
  - intros [c [H E]]. apply Nat.eqb_eq in E. subst; auto.
  - intros H. exists a. split; auto. apply Nat.eqb_refl.
Qed.

Lemma nodupb_iff : forall l, nodupb l = true <-> NoDup l.
Proof.
  induction l as [|a l IH]; simpl; split; intros H; try constructor.
  - apply andb_true_iff in H as [H1 H2]. apply negb_true_iff in H1. intro Hin.
    apply existsb_eqb in Hin. congruence.
  - apply andb_true_iff in H as [_ H2]. apply IH; auto.
  - inversion H; subst. apply andb_true_iff. split; [|apply IH; auto].
    apply negb_true_iff. destruct (existsb (Nat.eqb a) l) eqn:E; auto.
    apply existsb_eqb in E. contradiction.
Qed.

Theorem nsame_sound : forall A B, nsame A B = true -> forall k, In k A <-> In k B.
Proof.
  intros A B H k. unfold nsame in H. apply andb_true_iff in H as [H1 H2].
  rewrite forallb_forall in H1, H2. split; intro Hk.
  - apply existsb_eqb. exact (H1 k Hk).
  - apply existsb_eqb. exact (H2 k Hk).
Qed.

Definition ranks_b (W : mat) (b : vec) (pi : list nat) (x : vec) : bool :=
  nodupb pi && forallb (fun a => Nat.ltb a (length W)) pi
  && negb (Nat.eqb (length pi) 0) && chainb W b x pi
  && forallb (fun j => existsb (Nat.eqb j) pi || beforeb W b x (last pi O) j) (seq 0 (length W)).

Lemma chainb_sound : forall W b x pi, chainb W b x pi = true -> chain W b x pi.
Proof.
  intros W b x pi. induction pi as [|a [|c pi] IH]; simpl; auto.
  intros H. apply andb_true_iff in H as [H1 H2]. split; [apply beforeb_sound; auto|].
  apply IH; auto.
Qed.

Theorem ranking_witness_sound : forall W b pi x, ranks_b W b pi x = true -> ranking W b pi.
Proof.
  intros W b pi x H. exists x. unfold ranks_b in H.
  repeat rewrite andb_true_iff in H. destruct H as [[[[H1 H2] H3] H4] H5].
  repeat split.
  - apply nodupb_iff; auto.
  - eapply forallb_Forall; [|exact H2]. intros a Ha; apply Nat.ltb_lt; auto.
  - destruct pi; simpl in H3; discriminate.
  - apply chainb_sound; auto.
  - intros j Hj Hn. pose proof (proj1 (forallb_forall _ _) H5 j) as H6.
    assert (Hs : In j (seq 0 (length W))) by (apply in_seq; lia). specialize (H6 Hs). clear H5.
    rename H6 into H5. cbv beta in H5.
    apply orb_true_iff in H5 as [E|E]; [apply existsb_eqb in E; contradiction|].
    apply beforeb_sound; auto.
Qed.

Fixpoint consecutive (pi : list nat) : list (nat * nat) :=
  match pi with a :: ((c :: _) as rest) => (a, c) :: consecutive rest | _ => [] end.

Definition rank_pairs (W : mat) (pi : list nat) : list (nat * nat) :=
  consecutive pi ++ map (fun j => (last pi O, j))
                        (filter (fun j => negb (existsb (Nat.eqb j) pi)) (seq 0 (length W))).

Definition pair_row (W : mat) (b : vec) (p : nat * nat) : list (vec * Q) :=
  let (a, c) := p in
  if Nat.ltb a c && tiedb W b a c then []
  else [(vsub (row W a) (row W c), nth a b 0 - nth c b 0)].

Definition rank_rows (W : mat) (b : vec) (pi : list nat) : list (vec * Q) :=
  flat_map (pair_row W b) (rank_pairs W pi).

Lemma chain_consecutive : forall W b x pi a c,
  chain W b x pi -> In (a, c) (consecutive pi) -> before W b x a c.
Proof.
  intros W b x pi. induction pi as [|a0 [|c0 pi] IH]; simpl; intros a c H Hin; try tauto.
  destruct H as [H1 H2]. destruct Hin as [E|Hin]; [inversion E; subst; auto|].
  apply IH; auto.
Qed.

Lemma rank_rows_hold : forall W b pi x, ranks W b pi x -> Forall (holds x) (rank_rows W b pi).
Proof.
  intros W b pi x [_ [_ [_ [Hc Hl]]]]. apply Forall_forall. intros r Hr.
  apply in_flat_map in Hr as [[a c] [Hp Hr]].
  assert (B : before W b x a c).
  { apply in_app_or in Hp as [Hp|Hp]; [eapply chain_consecutive; eauto|].
    apply in_map_iff in Hp as [j [E Hj]]. inversion E; subst.
    apply filter_In in Hj as [Hj Hn]. apply in_seq in Hj. apply Hl; [lia|].
    intro Hin. apply existsb_eqb in Hin. rewrite Hin in Hn. discriminate. }
  unfold pair_row in Hr. destruct (Nat.ltb a c && tiedb W b a c) eqn:T; [destruct Hr|].
  destruct Hr as [<-|[]]. unfold holds. simpl. rewrite dot_vsub.
  destruct B as [B|[B1 B2]]; [unfold logit in B; lra|].
  apply Nat.ltb_lt in B1. rewrite B1, B2 in T. discriminate.
Qed.

Theorem ranking_never_sound : forall W b pi ys,
  gordan_ok ys (rank_rows W b pi) = true -> ~ ranking W b pi.
Proof.
  intros W b pi ys H [x Hx]. apply (gordan_sound _ _ H). exists x. apply rank_rows_hold; auto.
Qed.

Fixpoint seqs (n k : nat) : list (list nat) :=
  match n with O => [[]] | S n' => flat_map (fun a => map (cons a) (seqs n' k)) (seq 0 k) end.

Lemma in_seqs : forall l k, Forall (fun a => (a < k)%nat) l -> In l (seqs (length l) k).
Proof.
  induction l as [|a l IH]; intros k H; simpl; auto. inversion H; subst.
  apply in_flat_map. exists a. split; [apply in_seq; lia|]. apply in_map. auto.
Qed.

Definition rank_candidates (W : mat) : list (list nat) :=
  filter nodupb (seqs (length W) (length W)).

Definition complete_rank_ok (W : mat) (b : vec) (pats : list (list nat * vec)) (certs : list vec) :=
  forallb (fun p => Nat.eqb (length (fst p)) (length W) && ranks_b W b (fst p) (snd p)) pats
  && cover (fun pi => nmem pi (map fst pats)) (fun pi y => gordan_ok y (rank_rows W b pi))
           (rank_candidates W) certs.

Theorem complete_rank_sound : forall W b pats certs,
  complete_rank_ok W b pats certs = true -> all_rankings W b (map fst pats).
Proof.
  intros W b pats certs H pi Hlen. apply andb_true_iff in H as [H1 H2]. split.
  - intros Hr. assert (C : In pi (rank_candidates W)).
    { destruct Hr as [x [Hn [Hf _]]]. apply filter_In. split; [|apply nodupb_iff; auto].
      rewrite <- Hlen. apply in_seqs. rewrite Hlen; auto. }
    destruct (cover_sound _ _ _ _ H2 pi C) as [M|[y R]]; [apply nmem_In; auto|].
    exfalso. exact (ranking_never_sound _ _ _ _ R Hr).
  - intros Hin. apply in_map_iff in Hin as [[p x] [E Hin]]. simpl in E. subst p.
    eapply forallb_forall in H1; [|exact Hin]. apply andb_true_iff in H1 as [_ H1].
    exact (ranking_witness_sound _ _ _ _ H1).
Qed.

(** ** Completeness by a prefix tree

    The listed patterns (all of length [k]) form a tree of prefixes.  [tree_ok] checks that
    at every node [p] (a prefix of a listed pattern, shorter than [k]) every possible next
    entry [a] either extends [p] to a prefix of a listed pattern, or [p ++ [a]] is refuted by
    its own certificate (taken in order from [certs]).  If no pattern can extend a refuted
    prefix, every pattern is listed ([tree_sound]); the instances below show this for
    rankings (a refuted prefix cannot be the top of any ranking) and sign vectors (a
    refuted prefix of signs holds at no input). *)

Section Tree.
Variable A : Type.
Variable dec : forall a c : A, {a = c} + {a <> c}.
Variable opts : list A -> list A.
Variable refute : list A -> vec -> bool.

Definition leqb (p q : list A) : bool := if list_eq_dec dec p q then true else false.
Definition prefixb (p w : list A) : bool := leqb p (firstn (length p) w).
Definition in_tree (L : list (list A)) (p : list A) : bool := existsb (prefixb p) L.
Definition tree_nodes (k : nat) (L : list (list A)) : list (list A) :=
  flat_map (fun w => map (fun m => firstn m w) (seq 0 k)) L.
Definition tree_children (k : nat) (L : list (list A)) : list (list A) :=
  flat_map (fun p => map (fun a => p ++ [a]) (opts p)) (tree_nodes k L).
Definition tree_ok (k : nat) (L : list (list A)) (certs : list vec) : bool :=
  negb (Nat.eqb (length L) 0) && forallb (fun w => Nat.eqb (length w) k) L
  && cover (in_tree L) refute (tree_children k L) certs.

Lemma firstn_S_nth : forall (v : list A) m d, (m < length v)%nat ->
  firstn (S m) v = firstn m v ++ [nth m v d].
Proof.
  induction v as [|a v IH]; intros m d H; simpl in H; [lia|].
  destruct m as [|m]; [reflexivity|].
  change (a :: firstn (S m) v = (a :: firstn m v) ++ [nth m v d]). rewrite (IH m d) by lia.
  reflexivity.
Qed.

Lemma in_tree_spec : forall L p, in_tree L p = true -> exists w, In w L /\ firstn (length p) w = p.
Proof.
  intros L p H. apply existsb_exists in H as [w [Hw E]]. exists w. split; auto.
  unfold prefixb, leqb in E. apply dec_eqb_iff in E; auto.
Qed.

Theorem tree_sound : forall k L certs (v : list A) d,
  tree_ok k L certs = true -> length v = k ->
  (forall m, (m < k)%nat -> In (nth m v d) (opts (firstn m v))) ->
  (forall m y, (m < k)%nat -> refute (firstn (S m) v) y = false) ->
  In v L.
Proof.
  intros k L certs v d H Hl Ho Hr. unfold tree_ok in H.
  apply andb_true_iff in H as [H H3]. apply andb_true_iff in H as [H1 H2].
  assert (P : forall m, (m <= k)%nat -> in_tree L (firstn m v) = true).
  { induction m as [|m IH]; intros Hm.
    - destruct L as [|w L]; [discriminate|]. unfold in_tree. simpl. unfold prefixb, leqb. simpl.
      destruct (list_eq_dec dec [] []); [reflexivity|congruence].
    - assert (Hm' : (m < k)%nat) by lia. specialize (IH ltac:(lia)).
      apply in_tree_spec in IH as [w [Hw Ew]].
      rewrite firstn_length, Nat.min_l in Ew by lia.
      assert (C : In (firstn (S m) v) (tree_children k L)).
      { rewrite (firstn_S_nth v m d) by lia. apply in_flat_map. exists (firstn m v). split.
        - apply in_flat_map. exists w. split; auto. rewrite <- Ew.
          apply (in_map (fun i => firstn i w)). apply in_seq. lia.
        - apply (in_map (fun a => firstn m v ++ [a])). apply Ho. auto. }
      destruct (cover_sound _ _ _ _ H3 _ C) as [M|[y R]]; auto.
      rewrite (Hr m y Hm') in R. discriminate. }
  specialize (P k (le_n k)). rewrite <- Hl, firstn_all in P.
  apply in_tree_spec in P as [w [Hw E]].
  eapply forallb_forall in H2; [|exact Hw]. apply Nat.eqb_eq in H2.
  rewrite Hl, <- H2, firstn_all in E. subst; auto.
Qed.
End Tree.

(** Rankings: a prefix that is the top of a ranking at [x] ... *)

Lemma veqb_trans : forall u v w, veqb u v = true -> veqb v w = true -> veqb u w = true.
Proof.
  induction u as [|a u IH]; intros [|c v] [|e w] H1 H2; simpl in *; try discriminate; auto.
  apply andb_true_iff in H1 as [A1 B1]. apply andb_true_iff in H2 as [A2 B2].
  apply andb_true_iff. split; [|eapply IH; eauto].
  apply Qeq_bool_true in A1. apply Qeq_bool_true in A2. apply Qeq_bool_true. eapply Qeq_trans; eauto.
Qed.

Lemma tied_logit : forall W b x a c, tiedb W b a c = true -> logit W b a x == logit W b c x.
Proof.
  intros W b x a c T. unfold tiedb in T. apply andb_true_iff in T as [T1 T2].
  apply Qeq_bool_true in T2. unfold logit. rewrite (veqb_dot _ _ x T1), T2. reflexivity.
Qed.

Lemma before_trans : forall W b x a c e, before W b x a c -> before W b x c e -> before W b x a e.
Proof.
  intros W b x a c e [H1|[L1 T1]] [H2|[L2 T2]]; unfold before.
  - left. lra.
  - left. pose proof (tied_logit W b x c e T2). lra.
  - left. pose proof (tied_logit W b x a c T1). lra.
  - right. split; [lia|]. unfold tiedb in *.
    apply andb_true_iff in T1 as [T1 U1]. apply andb_true_iff in T2 as [T2 U2].
    apply andb_true_iff. split; [eapply veqb_trans; eauto|].
    apply Qeq_bool_true in U1. apply Qeq_bool_true in U2. apply Qeq_bool_true. eapply Qeq_trans; eauto.
Qed.

Lemma chain_head : forall W b x r c, chain W b x (c :: r) -> forall j, In j r -> before W b x c j.
Proof.
  intros W b x r. induction r as [|a r IH]; intros c H j Hj; [destruct Hj|].
  simpl in H. destruct H as [H1 H2]. destruct Hj as [<-|Hj]; auto.
  eapply before_trans; [exact H1|]. apply IH; auto.
Qed.

Lemma chain_app_l : forall W b x q r, chain W b x (q ++ r) -> chain W b x q.
Proof.
  intros W b x q r. induction q as [|a q IH]; intros H; [simpl; auto|].
  destruct q as [|c q]; [simpl; auto|]. simpl in H |- *. destruct H as [H1 H2]. split; [exact H1|apply IH; exact H2].
Qed.

Lemma chain_tail : forall W b x a l, chain W b x (a :: l) -> chain W b x l.
Proof. intros W b x a [|c l] H; simpl in *; tauto. Qed.

Lemma chain_app_r : forall W b x q r, chain W b x (q ++ r) -> chain W b x r.
Proof.
  intros W b x q r. induction q as [|a q IH]; intros H; auto. apply IH. eapply chain_tail; exact H.
Qed.

Lemma in_last : forall (r : list nat) c, r <> [] -> In (last (c :: r) O) r.
Proof.
  induction r as [|a r IH]; intros c H; [congruence|].
  destruct r as [|e r]; [left; reflexivity|]. right. apply (IH a). discriminate.
Qed.

Lemma last_app_ne : forall (l m : list nat) d, m <> [] -> last (l ++ m) d = last m d.
Proof.
  induction l as [|a l IH]; intros m d H; auto. simpl. rewrite <- (IH m d H).
  destruct (l ++ m) eqn:E; auto. apply app_eq_nil in E. tauto.
Qed.

Lemma in_firstn : forall {B} n (l : list B) a, In a (firstn n l) -> In a l.
Proof.
  intros B n l a H. rewrite <- (firstn_skipn n l). apply in_or_app. auto.
Qed.

Lemma nodup_firstn : forall n (l : list nat), NoDup l -> NoDup (firstn n l).
Proof.
  induction n as [|n IH]; intros [|a l] H; simpl; try constructor.
  - inversion H; subst. intro Hin. apply in_firstn in Hin. contradiction.
  - inversion H; subst. apply IH; auto.
Qed.

(** ... so every nonempty prefix of a ranking at [x] ranks at [x] (this uses transitivity). *)
Lemma ranks_prefix : forall W b pi x n, ranks W b pi x -> (0 < n)%nat -> ranks W b (firstn n pi) x.
Proof.
  intros W b pi x n [Hd [Hf [Hn [Hc Hl]]]] Hpos.
  assert (Q : firstn n pi <> []).
  { destruct pi as [|a pi]; [congruence|]. destruct n; [lia|]. discriminate. }
  destruct (exists_last Q) as [q0 [c Eq]].
  assert (Epi : pi = q0 ++ c :: skipn n pi).
  { rewrite <- (firstn_skipn n pi) at 1. rewrite Eq, <- app_assoc. reflexivity. }
  repeat split.
  - apply nodup_firstn; auto.
  - apply Forall_forall. intros a Ha. eapply Forall_forall in Hf; [exact Hf|]. eapply in_firstn; eauto.
  - exact Q.
  - rewrite <- (firstn_skipn n pi) in Hc. eapply chain_app_l; eauto.
  - intros j Hj Hnin. rewrite Eq, last_last.
    assert (Hcr : chain W b x (c :: skipn n pi)).
    { rewrite Epi in Hc. eapply chain_app_r; eauto. }
    destruct (in_dec Nat.eq_dec j (skipn n pi)) as [Hin|Hout]; [eapply chain_head; eauto|].
    assert (Hj' : ~ In j pi).
    { rewrite <- (firstn_skipn n pi). intro H. apply in_app_or in H. tauto. }
    specialize (Hl j Hj Hj').
    destruct (skipn n pi) as [|e r] eqn:Er.
    + rewrite Epi, last_last in Hl. exact Hl.
    + rewrite Epi, (last_app_ne q0 (c :: e :: r)) in Hl by discriminate.
      eapply before_trans; [|exact Hl]. eapply chain_head; [exact Hcr|].
      apply in_last. discriminate.
Qed.

Lemma nodup_nth_firstn : forall (v : list nat) m d, NoDup v -> (m < length v)%nat ->
  ~ In (nth m v d) (firstn m v).
Proof.
  induction v as [|a v IH]; intros m d H Hm; simpl in Hm; [lia|]. inversion H; subst.
  destruct m as [|m]; simpl; [tauto|]. intros [E|Hin].
  - apply H2. rewrite E. apply nth_In. lia.
  - eapply IH; eauto. lia.
Qed.

Definition rank_opts (k : nat) (p : list nat) : list nat :=
  filter (fun j => negb (existsb (Nat.eqb j) p)) (seq 0 k).

(** Each entry of a ranking at [x] is a possible next entry after the ones before it. *)
Lemma rank_opts_path : forall W b pi x m, ranks W b pi x -> (m < length pi)%nat ->
  In (nth m pi O) (rank_opts (length W) (firstn m pi)).
Proof.
  intros W b pi x m [Hd [Hf _]] Hm. unfold rank_opts. apply filter_In. split.
  - apply in_seq. split; [lia|]. simpl. eapply Forall_forall in Hf; [exact Hf|].
    apply nth_In. lia.
  - apply negb_true_iff. destruct (existsb _ _) eqn:E; auto. apply existsb_eqb in E.
    exfalso. eapply nodup_nth_firstn; eauto.
Qed.

(** Top-t prefixes, by the prefix tree of depth t: every listed prefix has its witness,
    and the prefix tree is closed.  Full rankings are the case t = length W. *)
Definition tree_top_ok (W : mat) (b : vec) (t : nat) (pats : list (list nat * vec))
  (certs : list vec) :=
  forallb (fun p => ranks_b W b (fst p) (snd p)) pats
  && tree_ok nat Nat.eq_dec (rank_opts (length W)) (fun pi y => gordan_ok y (rank_rows W b pi))
             t (map fst pats) certs.

Theorem tree_top_sound : forall W b t pats certs,
  tree_top_ok W b t pats certs = true -> all_top_rankings W b t (map fst pats).
Proof.
  intros W b t pats certs H pi Hlen. apply andb_true_iff in H as [H1 H2]. split.
  - intros [x Hx]. apply (tree_sound nat Nat.eq_dec _ _ _ _ _ pi O H2 Hlen).
    + intros m Hm. apply (rank_opts_path W b pi x); [exact Hx|lia].
    + intros m y Hm. destruct (gordan_ok y (rank_rows W b (firstn (S m) pi))) eqn:G; auto.
      exfalso. apply (ranking_never_sound _ _ _ _ G). exists x. apply ranks_prefix; auto. lia.
  - intros Hin. apply in_map_iff in Hin as [[p x] [E Hin]]. simpl in E. subst p.
    eapply forallb_forall in H1; [|exact Hin]. exact (ranking_witness_sound _ _ _ _ H1).
Qed.

(** Full rankings: the prefix tree of depth [length W] ([all_rankings W b] is
    [all_top_rankings W b (length W)]). *)
Definition tree_rank_ok (W : mat) (b : vec) (pats : list (list nat * vec)) (certs : list vec) :=
  tree_top_ok W b (length W) pats certs.

Theorem tree_rank_sound : forall W b pats certs,
  tree_rank_ok W b pats certs = true -> all_rankings W b (map fst pats).
Proof. intros W b. exact (tree_top_sound W b (length W)). Qed.

(** Sign vectors: the signs of the first rows at [x] hold at [x] ([sign_rows_sub]). *)
Lemma nth_firstn_cases : forall (s : list Z) n i,
  nth i (firstn n s) 0%Z = 0%Z \/ nth i (firstn n s) 0%Z = nth i s 0%Z.
Proof.
  induction s as [|a s IH]; intros [|n] [|i]; simpl; auto.
Qed.

Definition sign_opts (W : mat) (b : vec) (p : list Z) : list Z :=
  if zero_rowb W b (length p) then [0%Z] else [1%Z; (-1)%Z].

(** Each sign of a generic [x] is a possible next entry after the signs before it. *)
Lemma sign_opts_path : forall W b s x m, generic W b x -> signs_at W b x = s ->
  (m < length W)%nat -> In (nth m s 0%Z) (sign_opts W b (firstn m s)).
Proof.
  intros W b s x m Hg Hs Hm.
  assert (Hl : length s = length W) by (subst s; unfold signs_at; rewrite map_length, seq_length; auto).
  unfold sign_opts. rewrite firstn_length, Nat.min_l by lia.
  assert (E : nth m s 0%Z = qsign (logit W b m x)).
  { subst s. unfold signs_at. apply (nth_map_seq (fun i => qsign (logit W b i x))). lia. }
  rewrite E. exact (sign_choice W b x m Hg Hm).
Qed.

(** The checker: every listed sign vector has its witness, and the prefix tree is closed. *)
Definition tree_sign_ok (W : mat) (b : vec) (pats : list (list Z * vec)) (certs : list vec) :=
  forallb (fun p => sign_witness_ok W b (fst p) (snd p)) pats
  && tree_ok Z Z.eq_dec (sign_opts W b) (fun s y => gordan_ok y (sign_rows W b s))
             (length W) (map fst pats) certs.

Theorem tree_sign_sound : forall W b pats certs,
  tree_sign_ok W b pats certs = true -> all_sign_patterns W b (map fst pats).
Proof.
  intros W b pats certs H s. apply andb_true_iff in H as [H1 H2]. split.
  - intros [x [Hg Hs]].
    assert (Hl : length s = length W) by (subst s; unfold signs_at; rewrite map_length, seq_length; auto).
    apply (tree_sound Z Z.eq_dec _ _ _ _ _ s 0%Z H2 Hl).
    + intros m Hm. exact (sign_opts_path W b s x m Hg Hs Hm).
    + intros m y Hm. destruct (gordan_ok y (sign_rows W b (firstn (S m) s))) eqn:G; auto.
      exfalso. apply (gordan_sound _ _ G). exists x. apply (sign_rows_sub W b s); auto.
      apply nth_firstn_cases.
  - intros Hin. apply in_map_iff in Hin as [[s' x] [E Hin]]. simpl in E. subst s'.
    eapply forallb_forall in H1; [|exact Hin]. exact (sign_witness_sound _ _ _ _ H1).
Qed.

(** ** Exactly these labels can be ranked first (theorem argmaxable-labels) *)

Lemma tiedb_trans : forall W b a c e, tiedb W b a c = true -> tiedb W b c e = true ->
  tiedb W b a e = true.
Proof.
  intros W b a c e H1 H2. unfold tiedb in *. apply andb_true_iff in H1 as [A1 B1].
  apply andb_true_iff in H2 as [A2 B2]. apply andb_true_iff. split; [eapply veqb_trans; eauto|].
  apply Qeq_bool_true in B1. apply Qeq_bool_true in B2. apply Qeq_bool_true.
  eapply Qeq_trans; eauto.
Qed.

Lemma last_In : forall (l : list nat) d, l <> [] -> In (last l d) l.
Proof.
  induction l as [|a l IH]; intros d H; [congruence|].
  destruct l as [|e l]; [left; reflexivity|]. right. apply IH. discriminate.
Qed.

(** A class in increasing order whose labels are pairwise tied is a chain at every input. *)
Fixpoint tied_chainb (W : mat) (b : vec) (c : list nat) : bool :=
  match c with
  | a :: ((e :: _) as rest) => Nat.ltb a e && tiedb W b a e && tied_chainb W b rest
  | _ => true
  end.

Lemma tied_chain : forall W b c x, tied_chainb W b c = true -> chain W b x c.
Proof.
  intros W b c x. induction c as [|a c IH]; [simpl; auto|].
  destruct c as [|e c]; [simpl; auto|]. intros H. simpl in H.
  apply andb_true_iff in H as [H H3]. apply andb_true_iff in H as [H1 H2].
  split; [right; split; [apply Nat.ltb_lt; exact H1|exact H2]|exact (IH H3)].
Qed.

(** A class: non-empty, without repetition, labels of the head, a tied chain, pairwise
    tied, and not tied with any label outside it. *)
Definition class_ok (W : mat) (b : vec) (c : list nat) : bool :=
  negb (Nat.eqb (length c) 0) && nodupb c
  && forallb (fun a => Nat.ltb a (length W)) c && tied_chainb W b c
  && forallb (fun a => forallb (fun e => tiedb W b a e) c) c
  && forallb (fun a => forallb (fun j => existsb (Nat.eqb j) c || negb (tiedb W b a j))
                               (seq 0 (length W))) c.

(** The classes hold every label. *)
Definition classes_ok (W : mat) (b : vec) (cs : list (list nat)) : bool :=
  forallb (class_ok W b) cs
  && forallb (fun j => existsb (fun c => existsb (Nat.eqb j) c) cs) (seq 0 (length W)).

(** Each class decided: ranked first ([true]) or refuted ([false]). *)
Fixpoint decided (W : mat) (b : vec) (cs : list (list nat)) (fs : list bool) : Prop :=
  match cs, fs with
  | c :: cs', f :: fs' => (if f then ranking W b c else ~ ranking W b c) /\ decided W b cs' fs'
  | [], [] => True
  | _, _ => False
  end.

Lemma decided_In : forall W b cs fs c f, decided W b cs fs -> In (c, f) (combine cs fs) ->
  if f then ranking W b c else ~ ranking W b c.
Proof.
  intros W b cs. induction cs as [|c' cs IH]; intros [|f' fs] c f H Hin; simpl in *; try tauto.
  destruct H as [H1 H2]. destruct Hin as [E|Hin]; [inversion E; subst; exact H1|].
  exact (IH fs c f H2 Hin).
Qed.

Lemma decided_flag : forall W b cs fs c, decided W b cs fs -> In c cs ->
  exists f, In (c, f) (combine cs fs).
Proof.
  intros W b cs. induction cs as [|c' cs IH]; intros [|f' fs] c H Hin; simpl in *; try tauto.
  destruct H as [_ H2]. destruct Hin as [E|Hin]; [subst; exists f'; left; reflexivity|].
  destruct (IH fs c H2 Hin) as [f Hf]. exists f. right. exact Hf.
Qed.

Lemma class_first : forall W b c k pi x,
  class_ok W b c = true -> In k c -> ranks W b pi x -> In k pi ->
  (forall a, In a pi -> tiedb W b k a = true) -> ranks W b c x.
Proof.
  intros W b c k pi x H Hk [Hd [Hf [Hne [Hch Hlast]]]] Hkpi Ht. unfold class_ok in H.
  repeat rewrite andb_true_iff in H. destruct H as [[[[[H0 H1] H2] H3] H4] H5].
  assert (Hc : c <> []) by (intro E; subst; simpl in H0; discriminate).
  split; [apply nodupb_iff; exact H1|]. split.
  { eapply forallb_Forall; [|exact H2]. intros a Ha. apply Nat.ltb_lt. exact Ha. }
  split; [exact Hc|]. split; [apply tied_chain; exact H3|].
  intros j Hj Hnj.
  assert (Tkj : tiedb W b k j = false).
  { pose proof (proj1 (forallb_forall _ _) H5 k Hk) as F.
    pose proof (proj1 (forallb_forall _ _) F j (proj2 (in_seq _ _ _) (conj (Nat.le_0_l _) Hj)))
      as G. apply orb_true_iff in G as [G|G]; [apply existsb_eqb in G; contradiction|].
    apply negb_true_iff. exact G. }
  assert (Hnpi : ~ In j pi) by (intro J; rewrite (Ht j J) in Tkj; discriminate).
  assert (Lp : In (last pi O) pi) by (apply last_In; exact Hne).
  destruct (Hlast j Hj Hnpi) as [L|[_ T]].
  - left. pose proof (tied_logit W b x _ _ (Ht _ Lp)) as E1.
    assert (Lc : In (last c O) c) by (apply last_In; exact Hc).
    pose proof (proj1 (forallb_forall _ _) H4 k Hk) as F.
    pose proof (proj1 (forallb_forall _ _) F _ Lc) as T2.
    pose proof (tied_logit W b x _ _ T2) as E2.
    rewrite <- E2, E1. exact L.
  - rewrite (tiedb_trans W b _ _ _ (Ht _ Lp) T) in Tkj. discriminate.
Qed.

Theorem first_labels_sound : forall W b cs fs labels,
  classes_ok W b cs && nsame labels (concat (map fst (filter snd (combine cs fs)))) = true ->
  decided W b cs fs ->
  forall k, (k < length W)%nat -> (can_be_first W b k <-> In k labels).
Proof.
  intros W b cs fs labels H D k Hk. apply andb_true_iff in H as [Hc Hl].
  rewrite (nsame_sound _ _ Hl k). unfold classes_ok in Hc. apply andb_true_iff in Hc as [Hc Hall].
  split.
  - intros [pi [Hkpi [Ht [x Hx]]]].
    pose proof (proj1 (forallb_forall _ _) Hall k (proj2 (in_seq _ _ _) (conj (Nat.le_0_l _) Hk)))
      as E. apply existsb_exists in E as [c [Hcs Hkc]]. apply existsb_eqb in Hkc.
    pose proof (proj1 (forallb_forall _ _) Hc c Hcs) as Cc.
    pose proof (class_first W b c k pi x Cc Hkc Hx Hkpi Ht) as Rc.
    destruct (decided_flag W b cs fs c D Hcs) as [f Hf].
    pose proof (decided_In W b cs fs c f D Hf) as R. destruct f.
    + apply in_concat. exists c. split; [|exact Hkc].
      apply (in_map fst (filter snd (combine cs fs)) (c, true)). apply filter_In. split; auto.
    + exfalso. apply R. exists x. exact Rc.
  - intros Hin. apply in_concat in Hin as [c [Hc' Hkc]].
    apply in_map_iff in Hc' as [[c' f] [E Hin]]. simpl in E. subst c'.
    apply filter_In in Hin as [Hin Hf]. simpl in Hf. subst f.
    pose proof (decided_In W b cs fs c true D Hin) as R. simpl in R.
    pose proof (in_combine_l _ _ _ _ Hin) as Hcs.
    pose proof (proj1 (forallb_forall _ _) Hc c Hcs) as F. unfold class_ok in F.
    repeat rewrite andb_true_iff in F. destruct F as [[[[[_ _] _] _] F4] _].
    exists c. split; [exact Hkc|]. split; [|exact R].
    intros a Ha. exact (proj1 (forallb_forall _ _) (proj1 (forallb_forall _ _) F4 k Hkc) a Ha).
Qed.

(** ** Set comparisons of complete lists: Lemma 5.3 and Thm 5.6 on an instance *)

Definition set_eqb (A B : list (list Z)) : bool :=
  forallb (fun a => zmem a B) A && forallb (fun c => zmem c A) B.

Theorem equal_sign_patterns : forall W b L W' b' L',
  all_sign_patterns W b L -> all_sign_patterns W' b' L' -> set_eqb L L' = true ->
  forall s, sign_pattern W b s <-> sign_pattern W' b' s.
Proof.
  intros W b L W' b' L' H H' E s. apply andb_true_iff in E as [E1 E2].
  unfold all_sign_patterns in *. rewrite H, H'. split; intros Hin.
  - eapply forallb_forall in E1; eauto. apply zmem_In; auto.
  - eapply forallb_forall in E2; eauto. apply zmem_In; auto.
Qed.

Theorem rankings_as_sign_patterns : forall W LR G LS,
  all_rankings W [] LR -> all_sign_patterns G [] LS ->
  forallb (fun pi => Nat.eqb (length pi) (length W)) LR = true ->
  set_eqb (map (pair_signs W) LR) LS = true ->
  forall s, sign_pattern G [] s <->
            exists pi, length pi = length W /\ ranking W [] pi /\ s = pair_signs W pi.
Proof.
  intros W LR G LS HR HS HL E s. apply andb_true_iff in E as [E1 E2].
  unfold all_sign_patterns in HS. rewrite HS. split.
  - intros Hin. eapply forallb_forall in E2; eauto. apply zmem_In in E2.
    apply in_map_iff in E2 as [pi [<- Hpi]].
    eapply forallb_forall in HL; eauto. apply Nat.eqb_eq in HL.
    exists pi. repeat split; auto. apply HR; auto.
  - intros [pi [Hl [Hr ->]]]. apply HR in Hr; auto.
    eapply forallb_forall in E1; [|apply in_map; exact Hr]. apply zmem_In; auto.
Qed.

(** ** The argmax audit *)

Definition argmax_rows (W : mat) (b : vec) (k : nat) (S : list nat) : list (vec * Q) :=
  map (fun i => (vsub (row W k) (row W i), qsub (nth k b 0) (nth i b 0))) S.

Definition rows_ok (W : mat) (k : nat) (S : list nat) : bool :=
  forallb (fun i => Nat.ltb i (length W) && negb (Nat.eqb i k)) S.

Lemma argmax_rows_hold : forall W b k S x, rows_ok W k S = true -> strict_argmax W b k x ->
  Forall (holds x) (argmax_rows W b k S).
Proof.
  intros W b k S x H [_ Hx]. apply Forall_forall. intros r Hr.
  apply in_map_iff in Hr as [i [<- Hi]]. eapply forallb_forall in H; eauto.
  apply andb_true_iff in H as [H1 H2]. apply Nat.ltb_lt in H1. apply negb_true_iff in H2.
  assert (i <> k) by (intro E; subst; rewrite Nat.eqb_refl in H2; discriminate).
  specialize (Hx i H1 H). unfold holds, logit in *. simpl. rewrite dot_vsub, qsub_correct. lra.
Qed.

Theorem never_argmax_sound : forall W b k S ys,
  rows_ok W k S && gordan_ok ys (argmax_rows W b k S) = true ->
  ~ exists x, strict_argmax W b k x.
Proof.
  intros W b k S ys H [x Hx]. apply andb_true_iff in H as [H1 H2].
  apply (gordan_sound _ _ H2). exists x. apply argmax_rows_hold; auto.
Qed.

Theorem never_argmax_box_sound : forall W b k R S ys,
  rows_ok W k S && gordan_box_ok ys (argmax_rows W b k S) R = true ->
  ~ exists x, in_box R x /\ strict_argmax W b k x.
Proof.
  intros W b k R S ys H [x [Hb Hx]]. apply andb_true_iff in H as [H1 H2].
  apply (gordan_box_sound _ _ _ H2). exists x. split; auto. apply argmax_rows_hold; auto.
Qed.

(** ** Softmax, translations and cosines, over the real numbers *)

Definition rows_translated_ok (W W' : mat) (v : vec) : bool :=
  Nat.eqb (length W) (length W') && forallb (fun p => veqb (snd p) (vadd (fst p) v)) (combine W W').

(** Every row of [W'] is the row of [W] plus the same vector [v]: W' = W + 1 v^T. *)
Definition translate (W : mat) (v : vec) : mat := map (fun w => vadd w v) W.

Close Scope Q_scope.
Open Scope R_scope.

Lemma Q2R_0 : Q2R 0 = 0.
Proof. unfold Q2R; simpl. apply Rmult_0_l. Qed.

Lemma Q2R_qadd : forall a c, Q2R (qadd a c) = Q2R a + Q2R c.
Proof. intros. rewrite <- Q2R_plus. apply Qeq_eqR. apply qadd_correct. Qed.

Lemma dotR_vadd : forall u v h, dotR (vadd u v) h = dotR u h + dotR v h.
Proof.
  induction u as [|a u IH]; destruct v as [|c v]; destruct h as [|e h]; simpl; try ring.
  rewrite IH, Q2R_qadd. ring.
Qed.

Lemma dotR_veqb : forall u v h, veqb u v = true -> dotR u h = dotR v h.
Proof.
  induction u as [|a u IH]; destruct v as [|c v]; simpl; try discriminate; intros h H; auto.
  apply andb_true_iff in H as [H1 H2]. apply Qeq_bool_true in H1.
  destruct h; auto. rewrite (Qeq_eqR _ _ H1), (IH v h H2). reflexivity.
Qed.

Lemma sumR_scale : forall f (z : list R) c,
  sumR (map (fun zi => f zi * c) z) = sumR (map f z) * c.
Proof. intros f z c. induction z; simpl; [ring|rewrite IHz; ring]. Qed.

Lemma sumR_exp_pos : forall z, z <> [] -> 0 < sumR (map exp z).
Proof.
  induction z as [|a z IH]; intros H; [contradiction|]. simpl.
  destruct z as [|c z]; simpl; [pose proof (exp_pos a); lra|].
  assert (0 < sumR (map exp (c :: z))) by (apply IH; discriminate).
  simpl in H0. pose proof (exp_pos a). lra.
Qed.

(** Adding one number to every logit leaves the softmax unchanged. *)
Theorem softmax_shift : forall z t, softmax (map (fun zi => zi + t) z) = softmax z.
Proof.
  intros z t. unfold softmax.
  assert (E : map exp (map (fun zi => zi + t) z) = map (fun zi => exp zi * exp t) z).
  { rewrite map_map. apply map_ext. intros a. apply exp_plus. }
  rewrite E, sumR_scale, map_map. apply map_ext_in. intros zi Hin.
  assert (S : 0 < sumR (map exp z)) by (apply sumR_exp_pos; intro; subst; destruct Hin).
  pose proof (exp_pos t). rewrite exp_plus. field. split; lra.
Qed.

(** A translation W' = W + 1 v^T gives the same probabilities at every input. *)
Theorem translation_same_softmax : forall W W' v, rows_translated_ok W W' v = true ->
  forall h, softmax (logitsR W' h) = softmax (logitsR W h).
Proof.
  intros W W' v H h. rewrite <- (softmax_shift (logitsR W h) (dotR v h)). f_equal.
  apply andb_true_iff in H as [Hl H]. apply Nat.eqb_eq in Hl. unfold logitsR. rewrite map_map.
  revert W' Hl H. induction W as [|w W IH]; destruct W' as [|w' W']; simpl; try discriminate;
    intros Hl H; auto.
  apply andb_true_iff in H as [H1 H2]. simpl in H1. rewrite (dotR_veqb _ _ h H1), dotR_vadd.
  f_equal. apply IH; auto.
Qed.

Close Scope R_scope.
Open Scope Q_scope.

Lemma dot_comm : forall u v, dot u v == dot v u.
Proof.
  induction u as [|a u IH]; destruct v as [|c v]; simpl; try reflexivity. rewrite IH. ring.
Qed.

Lemma dot_veqb_r : forall u v x, veqb u v = true -> dot x u == dot x v.
Proof. intros. rewrite (dot_comm x u), (dot_comm x v). apply veqb_dot; auto. Qed.

Definition parallel_ok (u v : vec) (t : Q) : bool :=
  veqb u (vscale t v) && Qltb 0 (dot v v) && negb (Qeq_bool t 0).

Close Scope Q_scope.
Open Scope R_scope.

(** Parallel rows u = t v (t <> 0, v <> 0) have cosine sign(t). *)
Theorem cosine_parallel : forall u v t, parallel_ok u v t = true ->
  cosine u v = Q2R t / Rabs (Q2R t).
Proof.
  intros u v t H. unfold parallel_ok in H. repeat rewrite andb_true_iff in H.
  destruct H as [[H1 H2] H3]. apply Qltb_true in H2. apply negb_true_iff in H3.
  assert (Euv : (dot u v == t * dot v v)%Q) by (rewrite (veqb_dot _ _ v H1); apply dot_vscale).
  assert (Euu : (dot u u == t * t * dot v v)%Q).
  { rewrite (veqb_dot _ _ u H1), dot_vscale, (dot_comm v u), Euv. ring. }
  unfold cosine. rewrite (Qeq_eqR _ _ Euv), (Qeq_eqR _ _ Euu), !Q2R_mult.
  set (T := Q2R t). set (n := Q2R (dot v v)).
  assert (Hn : 0 < n) by (unfold n; rewrite <- Q2R_0; apply Qlt_Rlt; auto).
  assert (HT : T <> 0).
  { unfold T. intro E. rewrite <- Q2R_0 in E. apply eqR_Qeq in E.
    apply Qeq_bool_true in E. congruence. }
  clearbody T n. clear H1 H2 H3 Euv Euu.
  assert (Sq : sqrt (T * T) = Rabs T) by (rewrite <- sqrt_Rsqr_abs; reflexivity).
  rewrite sqrt_mult_alt by (apply (Rle_0_sqr T)). rewrite Sq, (Rmult_assoc (Rabs T)), sqrt_sqrt by (clear Sq HT; lra).
  field. split; [apply Rabs_no_R0; auto|]. apply Rgt_not_eq; exact Hn.
Qed.

Close Scope R_scope.
Open Scope Q_scope.

Definition cos_equal_ok (u v u' v' : vec) : bool :=
  Qltb 0 (dot u u) && Qltb 0 (dot v v) && Qltb 0 (dot u' u') && Qltb 0 (dot v' v')
  && Z.eqb (qsign (dot u v)) (qsign (dot u' v'))
  && Qeq_bool (dot u v * dot u v * (dot u' u' * dot v' v'))
              (dot u' v' * dot u' v' * (dot u u * dot v v)).

Definition cos_at_least_ok (u v : vec) (c : Q) : bool :=
  Qltb 0 c && Qltb 0 (dot u v) && Qltb 0 (dot u u) && Qltb 0 (dot v v)
  && Qle_bool (c * c * (dot u u * dot v v)) (dot u v * dot u v).

(** C(W1) = C(W2): every pair of rows has the same cosine in both heads. *)
Definition cosines_equal_ok (W1 W2 : mat) : bool :=
  Nat.eqb (length W1) (length W2)
  && forallb (fun i => forallb (fun j => cos_equal_ok (row W1 i) (row W1 j) (row W2 i) (row W2 j))
                               (seq 0 (length W1))) (seq 0 (length W1)).

Definition col_sums (W : mat) : vec := fold_right vadd [] W.

(** W is centred: its rows sum to the zero vector. *)
Definition centred (W : mat) : Prop := Forall (fun a => a == 0) (col_sums W).

Lemma centred_ok : forall W, forallb (fun a => Qeq_bool a 0) (col_sums W) = true -> centred W.
Proof. intros W H. eapply forallb_Forall; [|exact H]. intros a Ha; apply Qeq_bool_true; auto. Qed.


Lemma unit_rows_ok : forall W, forallb (fun r => Qeq_bool (dot r r) 1) W = true -> unit_rows W.
Proof. intros W H. eapply forallb_Forall; [|exact H]. intros a Ha; apply Qeq_bool_true; auto. Qed.

Lemma nonzero_minor : forall l : list Z,
  existsb (fun z => negb (Z.eqb z 0)) l = true -> exists z, In z l /\ z <> 0%Z.
Proof.
  intros l H. apply existsb_exists in H as [z [Hz E]]. exists z. split; auto.
  apply negb_true_iff in E. apply Z.eqb_neq; auto.
Qed.

Close Scope Q_scope.
Open Scope R_scope.

Lemma Q2R_pos : forall q, (0 < q)%Q -> 0 < Q2R q.
Proof. intros q H. rewrite <- Q2R_0. apply Qlt_Rlt; auto. Qed.

Lemma qsign_R : forall q,
  (qsign q = 1%Z /\ 0 < Q2R q) \/ (qsign q = 0%Z /\ Q2R q = 0) \/ (qsign q = (-1)%Z /\ Q2R q < 0).
Proof.
  intros q. destruct (qsign_cases q) as [[S P]|[[S P]|[S P]]].
  - left. split; auto. apply Q2R_pos; auto.
  - right; left. split; auto. rewrite <- Q2R_0. apply Qeq_eqR; auto.
  - right; right. split; auto. rewrite <- Q2R_0. apply Qlt_Rlt; auto.
Qed.

Lemma sq_eq_pos : forall x y, 0 < x -> 0 < y -> x * x = y * y -> x = y.
Proof. intros x y Hx Hy E. nra. Qed.

Lemma norms_pos : forall a c, 0 < a -> 0 < c ->
  0 < sqrt a * sqrt c /\ (sqrt a * sqrt c) * (sqrt a * sqrt c) = a * c.
Proof.
  intros a c Ha Hc. pose proof (sqrt_lt_R0 a Ha). pose proof (sqrt_lt_R0 c Hc). split.
  - apply Rmult_lt_0_compat; auto.
  - replace ((sqrt a * sqrt c) * (sqrt a * sqrt c)) with ((sqrt a * sqrt a) * (sqrt c * sqrt c))
      by ring. rewrite !sqrt_sqrt by lra. reflexivity.
Qed.

Theorem cosine_equal : forall u v u' v', cos_equal_ok u v u' v' = true ->
  cosine u v = cosine u' v'.
Proof.
  intros u v u' v' H. unfold cos_equal_ok in H. repeat rewrite andb_true_iff in H.
  destruct H as [[[[[Ha Hc] Ha'] Hc'] Hs] He].
  apply Qltb_true, Q2R_pos in Ha, Hc, Ha', Hc'. apply Z.eqb_eq in Hs.
  apply Qeq_bool_true, Qeq_eqR in He. rewrite !Q2R_mult in He.
  pose proof (qsign_R (dot u v)) as S1. pose proof (qsign_R (dot u' v')) as S2.
  unfold cosine.
  destruct (norms_pos _ _ Ha Hc) as [P P2]. destruct (norms_pos _ _ Ha' Hc') as [P' P2'].
  revert He S1 S2 P P2 P' P2'. rewrite Hs.
  generalize (sqrt (Q2R (dot u u)) * sqrt (Q2R (dot v v))) as p.
  generalize (sqrt (Q2R (dot u' u')) * sqrt (Q2R (dot v' v'))) as p'.
  generalize (Q2R (dot u v)) as g. generalize (Q2R (dot u' v')) as g'.
  generalize (Q2R (dot u u)) (Q2R (dot v v)) (Q2R (dot u' u')) (Q2R (dot v' v')).
  intros a c a' c' g' g p' p He S1 S2 P P2 P' P2'.
  assert (X : g * p' = g' * p).
  { assert (Sq : (g * p') * (g * p') = (g' * p) * (g' * p)).
    { transitivity (g * g * (p' * p')); [ring|]. rewrite P2'.
      transitivity (g' * g' * (p * p)); [|ring]. rewrite P2. lra. }
    destruct S1 as [[E1 G1]|[[E1 G1]|[E1 G1]]]; destruct S2 as [[E2 G2]|[[E2 G2]|[E2 G2]]];
      rewrite E1 in E2; try discriminate.
    - apply sq_eq_pos; auto; apply Rmult_lt_0_compat; auto.
    - rewrite G1, G2; ring.
    - assert (- (g * p') = - (g' * p)); [|lra].
      apply sq_eq_pos; [nra|nra|]. transitivity ((g * p') * (g * p')); [ring|].
      rewrite Sq; ring. }
  apply (Rmult_eq_reg_r (p * p')); [|nra].
  unfold Rdiv. replace (g * / p * (p * p')) with (g * p') by (field; lra).
  replace (g' * / p' * (p * p')) with (g' * p) by (field; lra). exact X.
Qed.

Theorem cosine_at_least : forall u v c, cos_at_least_ok u v c = true -> Q2R c <= cosine u v.
Proof.
  intros u v c H. unfold cos_at_least_ok in H. repeat rewrite andb_true_iff in H.
  destruct H as [[[[Hc Hg] Ha] Hb] Hle].
  apply Qltb_true, Q2R_pos in Hc, Hg, Ha, Hb. apply Qle_bool_iff, Qle_Rle in Hle.
  rewrite !Q2R_mult in Hle. unfold cosine.
  destruct (norms_pos _ _ Ha Hb) as [P P2].
  revert Hle Hg P P2 Hc.
  generalize (sqrt (Q2R (dot u u)) * sqrt (Q2R (dot v v))) as p.
  generalize (Q2R (dot u v)) as g. generalize (Q2R c) as C.
  generalize (Q2R (dot u u)) (Q2R (dot v v)).
  intros a b C g p Hle Hg P P2 Hc.
  assert (L : C * p <= g).
  { destruct (Rle_or_lt (C * p) g) as [L|L]; auto.
    assert (g * g < (C * p) * (C * p)) by nra.
    replace ((C * p) * (C * p)) with (C * C * (p * p)) in H by ring. rewrite P2 in H. lra. }
  unfold Rdiv. apply (Rmult_le_reg_r p); auto.
  rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. exact L.
Qed.

Theorem cosines_equal_sound : forall W1 W2, cosines_equal_ok W1 W2 = true ->
  forall i j, (i < length W1)%nat -> (j < length W1)%nat ->
  cosine (row W1 i) (row W1 j) = cosine (row W2 i) (row W2 j).
Proof.
  intros W1 W2 H i j Hi Hj. apply andb_true_iff in H as [_ H].
  assert (Ii : In i (seq 0 (length W1))) by (apply in_seq; lia).
  assert (Ij : In j (seq 0 (length W1))) by (apply in_seq; lia).
  pose proof (proj1 (forallb_forall _ _) H i Ii) as H1. cbv beta in H1.
  pose proof (proj1 (forallb_forall _ _) H1 j Ij) as H2. cbv beta in H2.
  apply cosine_equal; auto.
Qed.

Close Scope R_scope.
Open Scope Q_scope.

Close Scope Q_scope.
Open Scope R_scope.

Theorem cosine_opposite : forall u v t, parallel_ok u v t = true -> Qltb t 0 = true ->
  cosine u v = -1.
Proof.
  intros u v t H N. rewrite (cosine_parallel u v t H). apply Qltb_true in N.
  assert (Q2R t < 0) by (rewrite <- Q2R_0; apply Qlt_Rlt; auto).
  rewrite Rabs_left by lra. field. lra.
Qed.

Theorem cosine_same : forall u v t, parallel_ok u v t = true -> Qltb 0 t = true ->
  cosine u v = 1.
Proof.
  intros u v t H N. rewrite (cosine_parallel u v t H). apply Qltb_true, Q2R_pos in N.
  rewrite Rabs_right by lra. field. lra.
Qed.

Close Scope R_scope.
Open Scope Q_scope.

(** Many never-proofs of one head at once: (label, rows, multipliers). *)
(** Each listed label is one of the head's ([k < length W]): "label 8 is never the argmax"
    of an 8-label head is no claim. *)
Definition never_list_ok (W : mat) (b : vec) (L : list (nat * list nat * vec)) : bool :=
  forallb (fun e => let '(k, rs, ys) := e in
                    Nat.ltb k (length W) && (rows_ok W k rs && gordan_ok ys (argmax_rows W b k rs))) L.

Theorem never_list_sound : forall W b L, never_list_ok W b L = true ->
  forall k, In k (map (fun e => fst (fst e)) L) ->
  (k < length W)%nat /\ ~ exists x, strict_argmax W b k x.
Proof.
  intros W b L H k Hk. apply in_map_iff in Hk as [[[k' rs] ys] [E Hin]]. simpl in E. subst k'.
  pose proof (proj1 (forallb_forall _ _) H _ Hin) as H1. simpl in H1.
  apply andb_true_iff in H1 as [H0 H1]. split; [apply Nat.ltb_lt; exact H0|].
  exact (never_argmax_sound W b k rs ys H1).
Qed.

Definition never_box_list_ok (W : mat) (b : vec) (R : Q) (L : list (nat * list nat * vec)) :=
  forallb (fun e => let '(k, rs, ys) := e in
                    Nat.ltb k (length W)
                    && (rows_ok W k rs && gordan_box_ok ys (argmax_rows W b k rs) R)) L.

Theorem never_box_list_sound : forall W b R L, never_box_list_ok W b R L = true ->
  forall k, In k (map (fun e => fst (fst e)) L) ->
  (k < length W)%nat /\ ~ exists x, in_box R x /\ strict_argmax W b k x.
Proof.
  intros W b R L H k Hk. apply in_map_iff in Hk as [[[k' rs] ys] [E Hin]]. simpl in E. subst k'.
  pose proof (proj1 (forallb_forall _ _) H _ Hin) as H1. simpl in H1.
  apply andb_true_iff in H1 as [H0 H1]. split; [apply Nat.ltb_lt; exact H0|].
  exact (never_argmax_box_sound W b k R rs ys H1).
Qed.

Definition nset_eqb (A B : list (list nat)) : bool :=
  forallb (fun a => nmem a B) A && forallb (fun c => nmem c A) B.

Theorem equal_rankings : forall W b L W' b' L',
  all_rankings W b L -> all_rankings W' b' L' -> nset_eqb L L' = true ->
  forall pi, length pi = length W -> length pi = length W' -> (ranking W b pi <-> ranking W' b' pi).
Proof.
  intros W b L W' b' L' H H' E pi Hl Hl'. apply andb_true_iff in E as [E1 E2].
  rewrite (H pi Hl), (H' pi Hl'). split; intros Hin.
  - eapply forallb_forall in E1; eauto. apply nmem_In; auto.
  - eapply forallb_forall in E2; eauto. apply nmem_In; auto.
Qed.


(** ** Argmax witnesses: "label k is the strict argmax at some input"

    A witness of an audit is a point x, or a multiple t w_k of the label's own row.  W and b
    are written over one common denominator D and each point over one denominator E, so each
    logit is an integer over D E ([ndot]): the check compares integers, with no rational
    sum and no gcd.  Only [Z] arithmetic: no primitive-integer axiom is used. *)

Inductive point := At (x : vec) | Scaled (t : Q).

(** The input a witness names: x itself, or t w_k. *)
Definition point_of (W : mat) (k : nat) (p : point) : vec :=
  match p with At x => x | Scaled t => vscale t (row W k) end.

Definition den_all (D : positive) (u : vec) : bool := forallb (fun a => Pos.eqb (Qden a) D) u.

Fixpoint ndot (u x : vec) : Z :=
  match u, x with
  | a :: u', c :: x' => (Qnum a * Qnum c + ndot u' x')%Z
  | _, _ => 0%Z
  end.

Lemma Qmake_add : forall n m P, Qmake n P + Qmake m P == Qmake (n + m) P.
Proof. intros n m P. unfold Qeq, Qplus. simpl. rewrite !Pos2Z.inj_mul. ring. Qed.

Lemma ndot_dot : forall D E u x, den_all D u = true -> den_all E x = true ->
  dot u x == Qmake (ndot u x) (D * E).
Proof.
  intros D E. induction u as [|[n p] u IH]; destruct x as [|[m r] x]; simpl; intros Hu Hx;
    try reflexivity.
  apply andb_true_iff in Hu as [Hp Hu]. apply andb_true_iff in Hx as [Hr Hx].
  apply Pos.eqb_eq in Hp. apply Pos.eqb_eq in Hr. subst p r.
  rewrite (IH x Hu Hx), <- Qmake_add. reflexivity.
Qed.

(** The numerator over D E of the logit of a row [w] with bias [c] at [x]. *)
Definition nlogit (w : vec) (c : Q) (E : positive) (x : vec) : Z :=
  (ndot w x + Qnum c * Zpos E)%Z.

Lemma logit_nlogit : forall W b D E i x, forallb (den_all D) W = true -> den_all D b = true ->
  den_all E x = true -> (i < length W)%nat ->
  logit W b i x == Qmake (nlogit (row W i) (nth i b 0) E x) (D * E).
Proof.
  intros W b D E i x HW Hb Hx Hi. unfold logit, nlogit.
  rewrite (ndot_dot D E); [|eapply forallb_forall in HW; [exact HW|apply nth_In; exact Hi]|exact Hx].
  rewrite <- Qmake_add. apply Qplus_comp; [reflexivity|].
  destruct (nth_in_or_default i b 0) as [Hin|Hd].
  - eapply forallb_forall in Hb; [|exact Hin]. apply Pos.eqb_eq in Hb.
    destruct (nth i b 0) as [n p]. simpl in *. subst p. unfold Qeq. simpl.
    rewrite Pos2Z.inj_mul. ring.
  - rewrite Hd. reflexivity.
Qed.

(** Every row but label [k]'s (rows numbered from [i]) has a smaller numerator than [top]. *)
Fixpoint beats (W : mat) (b : vec) (i k : nat) (E : positive) (x : vec) (top : Z) : bool :=
  match W with
  | [] => true
  | w :: W' => (Nat.eqb i k || Z.ltb (nlogit w (hd 0 b) E x) top) && beats W' (tl b) (S i) k E x top
  end.

Lemma beats_spec : forall W b i k E x top, beats W b i k E x top = true ->
  forall j, (j < length W)%nat -> (i + j)%nat <> k ->
  (nlogit (nth j W []) (nth j b 0%Q) E x < top)%Z.
Proof.
  induction W as [|w W IH]; simpl; intros b i k E x top H j Hj Hne; [lia|].
  apply andb_true_iff in H as [H1 H2]. destruct j as [|j].
  - apply orb_true_iff in H1 as [H1|H1]; [apply Nat.eqb_eq in H1; lia|].
    apply Z.ltb_lt in H1. destruct b; exact H1.
  - specialize (IH (tl b) (S i) k E x top H2 j ltac:(lia) ltac:(lia)).
    destruct b; [destruct j|]; exact IH.
Qed.

(** The boolean check of one witness: label [k] exists and every other logit is smaller. *)
Definition argmax_ok (W : mat) (b : vec) (k : nat) (x : vec) : bool :=
  let E := Qden (hd 0 x) in
  Nat.ltb k (length W) && den_all E x
  && beats W b 0 k E x (nlogit (row W k) (nth k b 0) E x).

Theorem argmax_witness_sound : forall W b D k x,
  forallb (den_all D) W = true -> den_all D b = true -> argmax_ok W b k x = true ->
  strict_argmax W b k x.
Proof.
  intros W b D k x HW Hb H. unfold argmax_ok in H.
  repeat rewrite andb_true_iff in H. destruct H as [[Hk Hx] H]. apply Nat.ltb_lt in Hk.
  split; [exact Hk|]. intros i Hi Hne.
  rewrite (logit_nlogit W b D _ i x HW Hb Hx Hi), (logit_nlogit W b D _ k x HW Hb Hx Hk).
  pose proof (beats_spec W b 0 k _ x _ H i Hi Hne) as L. unfold Qlt. simpl.
  apply Z.mul_lt_mono_pos_r; [lia|exact L].
Qed.

(** Many witnesses of one head: (label, witness); W and b over the denominator of W's
    first entry. *)
Definition argmax_list_ok (W : mat) (b : vec) (L : list (nat * point)) : bool :=
  let D := Qden (hd 0 (hd [] W)) in
  forallb (den_all D) W && den_all D b
  && forallb (fun e => argmax_ok W b (fst e) (point_of W (fst e) (snd e))) L.

Theorem argmax_list_sound : forall W b L, argmax_list_ok W b L = true ->
  forall k, In k (map fst L) -> exists x, strict_argmax W b k x.
Proof.
  intros W b L H k Hk. unfold argmax_list_ok in H. repeat rewrite andb_true_iff in H.
  destruct H as [[HW Hb] H].
  apply in_map_iff in Hk as [[k' p] [Ek Hin]]. simpl in Ek. subst k'.
  pose proof (proj1 (forallb_forall _ _) H _ Hin) as H1. simpl in H1.
  exists (point_of W k p). exact (argmax_witness_sound _ _ _ _ _ HW Hb H1).
Qed.

Lemma every_label : forall (l : list nat) n k, nleqb l (seq 0 n) = true -> (k < n)%nat -> In k l.
Proof.
  intros l n k H Hk. apply nleqb_iff in H. rewrite H. apply in_seq. lia.
Qed.

(** Every label of the head has a witness (the list's labels are 0, 1, ..., k - 1). *)
Theorem argmax_every_label_sound : forall W b L,
  argmax_list_ok W b L && nleqb (map fst L) (seq 0 (length W)) = true ->
  forall k, (k < length W)%nat -> exists x, strict_argmax W b k x.
Proof.
  intros W b L H k Hk. apply andb_true_iff in H as [H1 H2].
  exact (argmax_list_sound W b L H1 k (every_label _ _ _ H2 Hk)).
Qed.

Definition box_okb (R : Q) (x : vec) : bool := forallb (fun c => Qle_bool (Qabs c) R) x.

(** The box domain: each witness also lies in max_j |x_j| <= R. *)
Definition argmax_box_list_ok (W : mat) (b : vec) (R : Q) (L : list (nat * point)) : bool :=
  argmax_list_ok W b L && forallb (fun e => box_okb R (point_of W (fst e) (snd e))) L.

Theorem argmax_box_list_sound : forall W b R L, argmax_box_list_ok W b R L = true ->
  forall k, In k (map fst L) -> exists x, in_box R x /\ strict_argmax W b k x.
Proof.
  intros W b R L H k Hk. unfold argmax_box_list_ok, argmax_list_ok in H.
  repeat rewrite andb_true_iff in H. destruct H as [[[HW Hb] H] HB].
  apply in_map_iff in Hk as [[k' p] [Ek Hin]]. simpl in Ek. subst k'.
  pose proof (proj1 (forallb_forall _ _) H _ Hin) as H1.
  pose proof (proj1 (forallb_forall _ _) HB _ Hin) as H2. simpl in H1, H2.
  exists (point_of W k p). split; [|exact (argmax_witness_sound _ _ _ _ _ HW Hb H1)].
  eapply forallb_Forall; [|exact H2]. intros c Hc. apply Qle_bool_iff. exact Hc.
Qed.

Theorem argmax_box_every_label_sound : forall W b R L,
  argmax_box_list_ok W b R L && nleqb (map fst L) (seq 0 (length W)) = true ->
  forall k, (k < length W)%nat -> exists x, in_box R x /\ strict_argmax W b k x.
Proof.
  intros W b R L H k Hk. apply andb_true_iff in H as [H1 H2].
  exact (argmax_box_list_sound W b R L H1 k (every_label _ _ _ H2 Hk)).
Qed.

(** ** Streamed completeness: an explicit prefix tree, split over files

    A streamed enumeration (millions of regions) is proven by its prefix tree written out:
    a node at prefix [p] has one child per possible next entry ([opts p], in order), each
    a subtree, a refutation of [p ++ [a]] ([PCut]: sparse Gordan multipliers), a listed
    pattern's witness at full length ([PLeaf]), or a hole ([PHole]) proven in another file.
    Unlike [tree_ok], checking it costs one visit per node.  A shard file proves
    [sub_claim R q L] for its subtree at prefix [q]: [L] is exactly the realised patterns
    starting with [q], each once.  The assembling file checks the top of the tree, whose
    holes (all at depth [D]) are the shards' prefixes, and concludes for [concat Ls]. *)

Inductive ptree : Type :=
  | PLeaf : vec -> ptree
  | PCut : list (nat * Q) -> ptree
  | PCutZ : list Z -> ptree
  | PHole : ptree
  | PNode : pforest -> ptree
with pforest : Type :=
  | PNil : pforest
  | PCons : ptree -> pforest -> pforest.

(** Nodes of one and two children (sign vectors), written short. *)
Definition N1 (a : ptree) : ptree := PNode (PCons a PNil).
Definition N2 (a c : ptree) : ptree := PNode (PCons a (PCons c PNil)).

Scheme ptree_rec2 := Induction for ptree Sort Prop
  with pforest_rec2 := Induction for pforest Sort Prop.
Combined Scheme ptree_mutind from ptree_rec2, pforest_rec2.

(** Sparse multipliers [(i, y_i)]: Gordan on the rows they name (each index in range); a
    point satisfying every row satisfies those. *)
Definition gordan_sp_ok (ys : list (nat * Q)) (rs : list (vec * Q)) : bool :=
  forallb (fun e => Nat.ltb (fst e) (length rs)) ys
  && gordan_ok (map snd ys) (map (fun e => nth (fst e) rs ([], 0)) ys).

Theorem gordan_sp_sound : forall ys rs, gordan_sp_ok ys rs = true -> ~ exists x, Forall (holds x) rs.
Proof.
  intros ys rs H [x Hx]. apply andb_true_iff in H as [H1 H2]. apply (gordan_sound _ _ H2).
  exists x. apply Forall_forall. intros r Hr. apply in_map_iff in Hr as [e [<- He]].
  eapply Forall_forall; [exact Hx|]. apply nth_In. apply Nat.ltb_lt.
  exact (proj1 (forallb_forall _ _) H1 e He).
Qed.

(** Sparse multipliers written as a list of integers [[i; y_i; ...]] (faster for coqc to read
    than pairs of a nat and a rational). *)
Fixpoint zpairs (l : list Z) : list (nat * Q) :=
  match l with
  | i :: y :: r => (Z.to_nat i, inject_Z y) :: zpairs r
  | _ => []
  end.

Definition sub_claim {A} (R : list A -> Prop) (q : list A) (L : list (list A)) : Prop :=
  (forall v, R v -> firstn (length q) v = q -> In v L) /\
  (forall v, In v L -> R v /\ firstn (length q) v = q) /\ NoDup L.

Section PTree.
Variable A : Type.
Variable dec : forall a c : A, {a = c} + {a <> c}.
Variable opts : list A -> list A.
Variable refute : list A -> list (nat * Q) -> bool.
Variable wit : list A -> vec -> bool.
Variable k : nat.
Variable hole : list A -> bool.

Fixpoint pt_ok (p : list A) (t : ptree) {struct t} : bool :=
  match t with
  | PLeaf x => Nat.eqb (length p) k && wit p x
  | PCut y => negb (Nat.eqb (length p) 0) && refute p y
  | PCutZ y => negb (Nat.eqb (length p) 0) && refute p (zpairs y)
  | PHole => hole p
  | PNode f => Nat.ltb (length p) k && pf_ok p (opts p) f
  end
with pf_ok (p : list A) (os : list A) (f : pforest) {struct f} : bool :=
  match os, f with
  | [], PNil => true
  | a :: os', PCons t f' => pt_ok (p ++ [a]) t && pf_ok p os' f'
  | _, _ => false
  end.

(** The ends of the tree at their prefixes, in order: its patterns ([PLeaf]) if [leaves],
    else its holes ([PHole]).  One recursion for both; the choice is a [bool] matched at the
    end itself, so [vm_compute] runs it as fast as a recursion written for each. *)
Section Ends.
Variable leaves : bool.

Fixpoint pt_ends (p : list A) (t : ptree) {struct t} : list (list A) :=
  match t with
  | PLeaf _ => if leaves then [p] else []
  | PHole => if leaves then [] else [p]
  | PNode f => pf_ends p (opts p) f
  | _ => []
  end
with pf_ends (p : list A) (os : list A) (f : pforest) {struct f} : list (list A) :=
  match os, f with
  | a :: os', PCons t f' => pt_ends (p ++ [a]) t ++ pf_ends p os' f'
  | _, _ => []
  end.
End Ends.

Definition pt_pats : list A -> ptree -> list (list A) := pt_ends true.
Definition pt_holes : list A -> ptree -> list (list A) := pt_ends false.

Lemma firstn_app_one : forall (v : list A) (p : list A) a d,
  firstn (length p) v = p -> nth (length p) v d = a -> (length p < length v)%nat ->
  firstn (length (p ++ [a])) v = p ++ [a].
Proof.
  intros v p a d E N L. rewrite app_length. simpl. rewrite Nat.add_1_r.
  rewrite (firstn_S_nth A v (length p) d L), E, N. reflexivity.
Qed.

Lemma firstn_app_short : forall (s p : list A) a,
  firstn (length (p ++ [a])) s = p ++ [a] -> firstn (length p) s = p.
Proof.
  intros s p a E. assert (F := f_equal (firstn (length p)) E).
  rewrite firstn_firstn, app_length in F. simpl in F.
  rewrite Nat.min_l in F by lia. rewrite F, firstn_app, Nat.sub_diag, firstn_all. simpl.
  apply app_nil_r.
Qed.

Section Complete.
Variable v : list A.
Variable d : A.
Variable Hlen : length v = k.
Variable Hopt : forall m, (m < k)%nat -> In (nth m v d) (opts (firstn m v)).
Variable Href : forall j y, (0 < j <= k)%nat -> refute (firstn j v) y = false.

Definition reached (p : list A) (t : ptree) : Prop :=
  In v (pt_pats p t) \/ exists q, In q (pt_holes p t) /\ firstn (length q) v = q.

Lemma pt_complete_all :
  (forall t p, pt_ok p t = true -> firstn (length p) v = p -> (length p <= k)%nat ->
     reached p t) /\
  (forall f p os, pf_ok p os f = true -> firstn (length p) v = p -> (length p < k)%nat ->
     In (nth (length p) v d) os ->
     In v (pf_ends true p os f) \/
     exists q, In q (pf_ends false p os f) /\ firstn (length q) v = q).
Proof.
  apply (ptree_mutind
    (fun t => forall p, pt_ok p t = true -> firstn (length p) v = p -> (length p <= k)%nat ->
       reached p t)
    (fun f => forall p os, pf_ok p os f = true -> firstn (length p) v = p ->
       (length p < k)%nat -> In (nth (length p) v d) os ->
       In v (pf_ends true p os f) \/
       exists q, In q (pf_ends false p os f) /\ firstn (length q) v = q)).
  - intros x p H E _. simpl in H. apply andb_true_iff in H as [H _]. apply Nat.eqb_eq in H.
    left. simpl. left. rewrite <- E, H, <- Hlen, firstn_all. reflexivity.
  - intros y p H E L. simpl in H. apply andb_true_iff in H as [H0 H].
    apply negb_true_iff, Nat.eqb_neq in H0. rewrite <- E in H.
    rewrite (Href (length p) y) in H by lia. discriminate.
  - intros y p H E L. simpl in H. apply andb_true_iff in H as [H0 H].
    apply negb_true_iff, Nat.eqb_neq in H0. rewrite <- E in H.
    rewrite (Href (length p) (zpairs y)) in H by lia. discriminate.
  - intros p _ E _. right. exists p. simpl. auto.
  - intros f IH p H E L. simpl in H. apply andb_true_iff in H as [H0 H].
    apply Nat.ltb_lt in H0. unfold reached. simpl.
    apply (IH p (opts p) H E H0). rewrite <- E at 2. apply Hopt. exact H0.
  - intros p os H _ _ Hin. destruct os; [destruct Hin|discriminate].
  - intros t IHt f IHf p os H E L Hin. destruct os as [|a os]; [discriminate|].
    simpl in H. apply andb_true_iff in H as [H1 H2]. simpl.
    destruct (dec (nth (length p) v d) a) as [Ea|Na].
    + assert (E' : firstn (length (p ++ [a])) v = p ++ [a]).
      { apply (firstn_app_one v p a d E Ea). lia. }
      assert (L' : (length (p ++ [a]) <= k)%nat) by (rewrite app_length; simpl; lia).
      destruct (IHt (p ++ [a]) H1 E' L') as [R|[q [Hq Eq]]].
      * left. apply in_or_app. left. exact R.
      * right. exists q. split; [apply in_or_app; left; exact Hq|exact Eq].
    + destruct Hin as [Hin|Hin]; [congruence|].
      destruct (IHf p os H2 E L Hin) as [R|[q [Hq Eq]]].
      * left. apply in_or_app. right. exact R.
      * right. exists q. split; [apply in_or_app; right; exact Hq|exact Eq].
Qed.
End Complete.

(** An end under [p] that [pt_ok] accepts is at its own prefix: a leaf (some witness), or a
    hole [hole] accepts. *)
Definition end_ok (leaves : bool) (s : list A) : Prop :=
  if leaves then exists x, pt_ok s (PLeaf x) = true else pt_ok s PHole = true.

Lemma pt_ends_sound : forall leaves,
  (forall t p, pt_ok p t = true -> forall s, In s (pt_ends leaves p t) ->
     firstn (length p) s = p /\ end_ok leaves s) /\
  (forall f p os, pf_ok p os f = true -> forall s, In s (pf_ends leaves p os f) ->
     (exists a, In a os /\ firstn (length (p ++ [a])) s = p ++ [a]) /\ end_ok leaves s).
Proof.
  intros leaves. apply (ptree_mutind
    (fun t => forall p, pt_ok p t = true -> forall s, In s (pt_ends leaves p t) ->
       firstn (length p) s = p /\ end_ok leaves s)
    (fun f => forall p os, pf_ok p os f = true -> forall s, In s (pf_ends leaves p os f) ->
       (exists a, In a os /\ firstn (length (p ++ [a])) s = p ++ [a]) /\ end_ok leaves s)).
  1-4: intros *; intros H s Hs; destruct leaves; cbn in Hs;
    (destruct Hs as [<-|[]] || destruct Hs);
    (split; [apply firstn_all|unfold end_ok; first [exact H|eexists; exact H]]).
  - intros f IH p H s Hs. simpl in H, Hs. apply andb_true_iff in H as [_ H].
    destruct (IH p (opts p) H s Hs) as [[a [_ E]] X].
    split; [exact (firstn_app_short s p a E)|exact X].
  - intros p os _ s Hs. destruct os; destruct Hs.
  - intros t IHt f IHf p os H s Hs. destruct os as [|a os]; [discriminate|].
    simpl in H, Hs. apply andb_true_iff in H as [H1 H2]. apply in_app_or in Hs as [Hs|Hs].
    + destruct (IHt (p ++ [a]) H1 s Hs) as [E X].
      split; [exists a; split; [left; reflexivity|exact E]|exact X].
    + destruct (IHf p os H2 s Hs) as [[c [Hc E]] X].
      split; [exists c; split; [right; exact Hc|exact E]|exact X].
Qed.

(** Its two cases: a listed pattern has length [k] and its witness; a hole is one [hole]
    accepts. *)
Lemma pt_pats_sound : forall t p, pt_ok p t = true -> forall s, In s (pt_pats p t) ->
  length s = k /\ firstn (length p) s = p /\ exists x, wit s x = true.
Proof.
  intros t p H s Hs. destruct (proj1 (pt_ends_sound true) t p H s Hs) as [E [x X]].
  simpl in X. apply andb_true_iff in X as [X1 X2]. apply Nat.eqb_eq in X1.
  split; [exact X1|]. split; [exact E|exists x; exact X2].
Qed.

Lemma pt_holes_sound : forall t p, pt_ok p t = true -> forall q, In q (pt_holes p t) ->
  hole q = true.
Proof. intros t p H q Hq. exact (proj2 (proj1 (pt_ends_sound false) t p H q Hq)). Qed.

Lemma nodup_app_disj : forall (l1 l2 : list (list A)), NoDup l1 -> NoDup l2 ->
  (forall s, In s l1 -> ~ In s l2) -> NoDup (l1 ++ l2).
Proof.
  induction l1 as [|a l1 IH]; intros l2 H1 H2 D; simpl; [exact H2|].
  inversion H1; subst. constructor.
  - intro Hin. apply in_app_or in Hin as [Hin|Hin]; [contradiction|].
    exact (D a (or_introl eq_refl) Hin).
  - apply IH; auto. intros s Hs. apply D. right. exact Hs.
Qed.

Variable Hnd : forall p, NoDup (opts p).

Lemma pt_ends_nodup : forall leaves,
  (forall t p, pt_ok p t = true -> NoDup (pt_ends leaves p t)) /\
  (forall f p os, pf_ok p os f = true -> NoDup os -> NoDup (pf_ends leaves p os f)).
Proof.
  intros leaves. apply (ptree_mutind
    (fun t => forall p, pt_ok p t = true -> NoDup (pt_ends leaves p t))
    (fun f => forall p os, pf_ok p os f = true -> NoDup os -> NoDup (pf_ends leaves p os f))).
  1-4: intros *; intros _; destruct leaves; cbn; repeat constructor; intros [].
  - intros f IH p H. simpl in H |- *. apply andb_true_iff in H as [_ H]. exact (IH p _ H (Hnd p)).
  - intros p os _ _. destruct os; constructor.
  - intros t IHt f IHf p os H N. destruct os as [|a os]; [discriminate|].
    simpl in H |- *. apply andb_true_iff in H as [H1 H2]. inversion N; subst.
    apply nodup_app_disj; [exact (IHt _ H1)|exact (IHf _ _ H2 H4)|].
    intros s S1 S2.
    destruct (proj1 (pt_ends_sound leaves) t (p ++ [a]) H1 s S1) as [E1 _].
    destruct (proj2 (pt_ends_sound leaves) f p os H2 s S2) as [[c [Hc E2]] _].
    rewrite app_length in E1, E2. simpl in E1, E2. rewrite E1 in E2.
    apply app_inv_head in E2. injection E2 as <-. contradiction.
Qed.

End PTree.

(** A realised pattern's path, as the tree checker needs it (one lemma per instance). *)
Definition paths_ok {A} (opts : list A -> list A) (refute : list A -> list (nat * Q) -> bool)
  (k : nat) (R : list A -> Prop) (d : A) : Prop :=
  forall v, R v -> length v = k /\ (forall m, (m < k)%nat -> In (nth m v d) (opts (firstn m v))) /\
    (forall j y, (0 < j <= k)%nat -> refute (firstn j v) y = false).

Definition lleqb {A} (dec : forall a c : A, {a = c} + {a <> c}) (l1 l2 : list (list A)) : bool :=
  if list_eq_dec (list_eq_dec dec) l1 l2 then true else false.

Theorem pt_shard_sound : forall A (dec : forall a c : A, {a = c} + {a <> c}) opts refute wit k R (d : A) q t,
  paths_ok opts refute k R d -> (forall s x, length s = k -> wit s x = true -> R s) ->
  (forall p, NoDup (opts p)) ->
  pt_ok A opts refute wit k (fun _ => false) q t = true ->
  sub_claim R q (pt_pats A opts q t).
Proof.
  intros A dec opts refute wit k R d q t HP HW HN H. split; [|split].
  - intros v Rv Ev. destruct (HP v Rv) as [Hl [Ho Hr]].
    assert (Lq : (length q <= k)%nat).
    { rewrite <- Hl, <- Ev, firstn_length. lia. }
    destruct (proj1 (pt_complete_all A dec opts refute wit k (fun _ => false) v d Hl Ho Hr)
                t q H Ev Lq) as [I|[q' [Hq _]]]; [exact I|].
    exfalso. discriminate (pt_holes_sound A opts refute wit k _ t q H q' Hq).
  - intros s Hs. destruct (pt_pats_sound A opts refute wit k _ t q H s Hs) as [Hl [E [x X]]].
    split; [exact (HW s x Hl X)|exact E].
  - exact (proj1 (pt_ends_nodup A opts refute wit k _ HN true) t q H).
Qed.

Lemma forall2_in : forall {A B} (P : A -> B -> Prop) xs ys x, Forall2 P xs ys -> In x xs ->
  exists y, In y ys /\ P x y.
Proof.
  intros A B P xs ys x F. induction F as [|a b xs ys Hab F IH]; intros Hx; [destruct Hx|].
  destruct Hx as [<-|Hx]; [exists b; split; [left|]; auto|].
  destruct (IH Hx) as [y [Hy Py]]. exists y. split; [right|]; auto.
Qed.

Theorem pt_assemble : forall A dec opts refute wit k R (d : A) D T qs Ls,
  paths_ok opts refute k R d ->
  Nat.ltb D k && pt_ok A opts refute wit k (fun p => Nat.eqb (length p) D) [] T
  && Nat.eqb (length (pt_pats A opts [] T)) 0
  && lleqb dec (pt_holes A opts [] T) qs && nodup_by (fun a c => lleqb dec [a] [c]) qs = true ->
  Forall2 (sub_claim R) qs Ls ->
  (forall v, R v <-> In v (concat Ls)) /\ NoDup (concat Ls).
Proof.
  intros A dec opts refute wit k R d D T qs Ls HP H F.
  repeat rewrite andb_true_iff in H. destruct H as [[[[HD HT] H0] HQ] HN].
  apply Nat.ltb_lt in HD. apply Nat.eqb_eq in H0.
  unfold lleqb in HQ. destruct (list_eq_dec _ _ qs) as [Eq|]; [|discriminate].
  assert (HNq : NoDup qs).
  { apply (nodup_by_sound (fun a c => lleqb dec [a] [c])); [|exact HN].
    intros a c. unfold lleqb. rewrite dec_eqb_iff. split; [injection 1; auto|intros <-; reflexivity]. }
  assert (Hlen : forall q, In q qs -> length q = D).
  { rewrite <- Eq. intros q Hq. apply Nat.eqb_eq.
    exact (pt_holes_sound A opts refute wit k _ T [] HT q Hq). }
  split.
  - intros v. split.
    + intros Rv. destruct (HP v Rv) as [Hl [Ho Hr]].
      destruct (proj1 (pt_complete_all A dec opts refute wit k _ v d Hl Ho Hr) T [] HT
                  eq_refl ltac:(simpl; lia)) as [I|[q [Hq Ev]]].
      * apply length_zero_iff_nil in H0. rewrite H0 in I. destruct I.
      * rewrite Eq in Hq. destruct (forall2_in _ _ _ _ F Hq) as [L [HL [C _]]].
        apply in_concat. exists L. split; [exact HL|exact (C v Rv Ev)].
    + intros Hv. apply in_concat in Hv as [L [HL Hv]].
      clear - F HL Hv. induction F as [|q L' qs Ls' C F IH]; [destruct HL|].
      destruct HL as [<-|HL]; [exact (proj1 (proj1 (proj2 C) v Hv))|exact (IH HL)].
  - clear - F HNq Hlen. induction F as [|q L qs Ls C F IH]; simpl; [constructor|].
    inversion HNq; subst. apply nodup_app_disj.
    + exact (proj2 (proj2 C)).
    + apply IH; auto. intros q' Hq'. apply Hlen. right. exact Hq'.
    + intros s S1 S2. apply in_concat in S2 as [L2 [HL2 S2]].
      destruct (proj1 (proj2 C) s S1) as [_ E1].
      assert (Ex : exists q2, In q2 qs /\ firstn (length q2) s = q2).
      { clear - F HL2 S2. induction F as [|q' L' qs Ls' C' F IH]; [destruct HL2|].
        destruct HL2 as [<-|HL2].
        - exists q'. split; [left; reflexivity|exact (proj2 (proj1 (proj2 C') s S2))].
        - destruct (IH HL2) as [q2 [Hq2 E2]]. exists q2. split; [right|]; auto. }
      destruct Ex as [q2 [Hq2 E2]].
      rewrite (Hlen q (or_introl eq_refl)) in E1. rewrite (Hlen q2 (or_intror Hq2)) in E2.
      rewrite E1 in E2. subst q2. contradiction.
Qed.

(** The instances: sign vectors and full rankings. *)
Definition sign_refute (W : mat) (b : vec) (s : list Z) (y : list (nat * Q)) : bool :=
  gordan_sp_ok y (sign_rows W b s).
Definition rank_refute (W : mat) (b : vec) (pi : list nat) (y : list (nat * Q)) : bool :=
  gordan_sp_ok y (rank_rows W b pi).

Lemma sign_paths : forall W b, paths_ok (sign_opts W b) (sign_refute W b) (length W)
  (sign_pattern W b) 0%Z.
Proof.
  intros W b s [x [Hg Hs]].
  assert (Hl : length s = length W) by (subst s; unfold signs_at; rewrite map_length, seq_length; auto).
  split; [exact Hl|]. split.
  - intros m Hm. exact (sign_opts_path W b s x m Hg Hs Hm).
  - intros j y _. unfold sign_refute. destruct (gordan_sp_ok _ _) eqn:G; auto.
    exfalso. apply (gordan_sp_sound _ _ G). exists x. apply (sign_rows_sub W b s); auto.
    apply nth_firstn_cases.
Qed.

Lemma sign_opts_nodup : forall W b p, NoDup (sign_opts W b p).
Proof.
  intros W b p. unfold sign_opts. destruct (zero_rowb W b (length p)).
  - constructor; [intros []|constructor].
  - constructor; [intros [E|[]]; discriminate|constructor; [intros []|constructor]].
Qed.

Definition rank_real (W : mat) (b : vec) (pi : list nat) : Prop :=
  length pi = length W /\ ranking W b pi.

Lemma rank_paths : forall W b, paths_ok (rank_opts (length W)) (rank_refute W b) (length W)
  (rank_real W b) O.
Proof.
  intros W b pi [Hlen [x Hx]]. split; [exact Hlen|]. split.
  - intros m Hm. apply (rank_opts_path W b pi x); [exact Hx|lia].
  - intros j y Hj. unfold rank_refute. destruct (gordan_sp_ok _ _) eqn:G; auto.
    exfalso. apply (gordan_sp_sound _ _ G). exists x. apply rank_rows_hold. apply ranks_prefix; auto. lia.
Qed.

Lemma rank_opts_nodup : forall k p, NoDup (rank_opts k p).
Proof. intros k p. apply NoDup_filter, seq_NoDup. Qed.

(** A shard: the patterns of the subtree [t] at [q] are exactly the sign vectors of
    [W x + b] starting with [q], each once. *)
Theorem sign_shard_sound : forall W b q t,
  pt_ok Z (sign_opts W b) (sign_refute W b) (sign_witness_ok W b) (length W) (fun _ => false) q t
  = true -> sub_claim (sign_pattern W b) q (pt_pats Z (sign_opts W b) q t).
Proof.
  intros W b q t H. apply (pt_shard_sound Z Z.eq_dec _ _ (sign_witness_ok W b) _ _ 0%Z q t
    (sign_paths W b)); [|exact (sign_opts_nodup W b)|exact H].
  intros s x _ X. exact (sign_witness_sound _ _ _ _ X).
Qed.

Theorem rank_shard_sound : forall W b q t,
  pt_ok nat (rank_opts (length W)) (rank_refute W b) (ranks_b W b) (length W) (fun _ => false) q t
  = true -> sub_claim (rank_real W b) q (pt_pats nat (rank_opts (length W)) q t).
Proof.
  intros W b q t H. apply (pt_shard_sound nat Nat.eq_dec _ _ (ranks_b W b) _ _ O q t
    (rank_paths W b)); [|exact (rank_opts_nodup (length W))|exact H].
  intros s x Hl X. split; [exact Hl|]. exact (ranking_witness_sound _ _ _ _ X).
Qed.

(** The assembly: the shards' lists together are all the sign vectors / rankings, N of them,
    each once. *)
Theorem sign_stream_sound : forall W b D T qs Ls N,
  Nat.ltb D (length W)
  && pt_ok Z (sign_opts W b) (sign_refute W b) (sign_witness_ok W b) (length W)
       (fun p => Nat.eqb (length p) D) [] T
  && Nat.eqb (length (pt_pats Z (sign_opts W b) [] T)) 0
  && lleqb Z.eq_dec (pt_holes Z (sign_opts W b) [] T) qs
  && nodup_by (fun a c => lleqb Z.eq_dec [a] [c]) qs
  && Nat.eqb (length (concat Ls)) N = true ->
  Forall2 (sub_claim (sign_pattern W b)) qs Ls ->
  all_sign_patterns W b (concat Ls) /\ (length (concat Ls) = N)%nat /\ NoDup (concat Ls).
Proof.
  intros W b D T qs Ls N H F. apply andb_true_iff in H as [H HN]. apply Nat.eqb_eq in HN.
  destruct (pt_assemble Z Z.eq_dec _ _ _ _ _ 0%Z D T qs Ls (sign_paths W b) H F) as [E U].
  split; [exact E|]. split; [exact HN|exact U].
Qed.

Theorem rank_stream_sound : forall W b D T qs Ls N,
  Nat.ltb D (length W)
  && pt_ok nat (rank_opts (length W)) (rank_refute W b) (ranks_b W b) (length W)
       (fun p => Nat.eqb (length p) D) [] T
  && Nat.eqb (length (pt_pats nat (rank_opts (length W)) [] T)) 0
  && lleqb Nat.eq_dec (pt_holes nat (rank_opts (length W)) [] T) qs
  && nodup_by (fun a c => lleqb Nat.eq_dec [a] [c]) qs
  && Nat.eqb (length (concat Ls)) N = true ->
  Forall2 (sub_claim (rank_real W b)) qs Ls ->
  all_rankings W b (concat Ls) /\ (length (concat Ls) = N)%nat /\ NoDup (concat Ls).
Proof.
  intros W b D T qs Ls N H F. apply andb_true_iff in H as [H HN]. apply Nat.eqb_eq in HN.
  destruct (pt_assemble nat Nat.eq_dec _ _ _ _ _ O D T qs Ls (rank_paths W b) H F) as [E U].
  split; [|split; [exact HN|exact U]].
  intros pi Hl. split.
  - intros R. apply E. split; assumption.
  - intros I. exact (proj2 (proj2 (E pi) I)).
Qed.
